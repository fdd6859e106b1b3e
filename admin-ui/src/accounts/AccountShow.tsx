import AddIcon from '@mui/icons-material/Add';
import BlockIcon from '@mui/icons-material/Block';
import { Box, Chip, Stack, Table, TableBody, TableCell, TableHead, TableRow, TextField as MuiTextField, Typography } from '@mui/material';
import { useState } from 'react';
import {
  Button,
  Confirm,
  DateField,
  Labeled,
  ListButton,
  Show,
  SimpleShowLayout,
  TextField,
  TopToolbar,
  useDataProvider,
  useGetList,
  useNotify,
  useRecordContext,
} from 'react-admin';
import { formatDateTime } from '../common/format';
import { OneTimeKeyDialog } from '../common/OneTimeSecret';
import type { AdnetDataProvider } from '../dataProvider';
import { RolesField } from './AccountList';

/** The account's keys (no secrets): issue one (shown once) or revoke one (401 from then on). */
const Keys = () => {
  const account = useRecordContext();
  const dataProvider = useDataProvider<AdnetDataProvider>();
  const notify = useNotify();
  const [label, setLabel] = useState('');
  const [issued, setIssued] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<any>(null);
  // The dialog's title stays while it fades out after the key is cleared.
  const [revokeTitle, setRevokeTitle] = useState('');
  const { data: keys = [], refetch } = useGetList(
    'keys',
    { filter: { accountId: account?.id }, pagination: { page: 1, perPage: 1000 } },
    { enabled: Boolean(account?.id) },
  );
  if (!account) return null;

  const issue = async () => {
    try {
      const { data } = await dataProvider.create('keys', { data: { accountId: account.id, label: label.trim() } });
      setIssued(data.apiKey);
      setLabel('');
      await refetch();
    } catch (error) {
      notify((error as Error).message, { type: 'error' });
    }
  };
  const revoke = async () => {
    try {
      await dataProvider.revokeKey(revoking.keyId);
      notify('Key revoked', { type: 'success' });
      await refetch();
    } catch (error) {
      notify((error as Error).message, { type: 'error' });
    } finally {
      setRevoking(null);
    }
  };

  return (
    <Box sx={{ width: '100%' }}>
      <Typography variant="h6">API keys</Typography>
      <Stack direction="row" spacing={1} alignItems="center" sx={{ my: 1 }}>
        <MuiTextField size="small" name="keyLabel" label="Label of a new key" value={label} onChange={(event) => setLabel(event.target.value)} />
        <Button label="Issue key" onClick={issue} variant="contained">
          <AddIcon />
        </Button>
      </Stack>
      <Table size="small" data-testid="keys-table">
        <TableHead>
          <TableRow>
            <TableCell>Prefix</TableCell>
            <TableCell>Label</TableCell>
            <TableCell>Created</TableCell>
            <TableCell>State</TableCell>
            <TableCell />
          </TableRow>
        </TableHead>
        <TableBody>
          {keys.map((key: any) => (
            <TableRow key={key.id} data-testid={`key-${key.prefix}`}>
              <TableCell>
                <code>{key.prefix}…</code>
              </TableCell>
              <TableCell>{key.label}</TableCell>
              <TableCell>{formatDateTime(key.createdAt)}</TableCell>
              <TableCell>
                {key.revokedAt ? (
                  <Chip size="small" label={`revoked ${formatDateTime(key.revokedAt)}`} />
                ) : (
                  <Chip size="small" color="success" label="active" />
                )}
              </TableCell>
              <TableCell>
                {key.revokedAt ? null : (
                  <Button label="Revoke" color="error" onClick={() => (setRevoking(key), setRevokeTitle(`Revoke key ${key.prefix}…?`))}>
                    <BlockIcon />
                  </Button>
                )}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      <OneTimeKeyDialog title="New API key" apiKey={issued} onClose={() => setIssued(null)} />
      <Confirm
        isOpen={Boolean(revoking)}
        title={revokeTitle}
        content="Every call made with this key will be refused (401) from now on. This cannot be undone."
        onConfirm={revoke}
        onClose={() => setRevoking(null)}
      />
    </Box>
  );
};

export const AccountShow = () => (
  <Show actions={<TopToolbar><ListButton /></TopToolbar>}>
    <SimpleShowLayout>
      <Box sx={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(220px, 1fr))', gap: 2, width: '100%' }}>
        <Labeled label="Name"><TextField source="name" /></Labeled>
        <Labeled label="Account id"><TextField source="accountId" /></Labeled>
        <Labeled label="Roles"><RolesField /></Labeled>
        <Labeled label="Created"><DateField source="createdAt" showTime /></Labeled>
      </Box>
      <Keys />
    </SimpleShowLayout>
  </Show>
);
