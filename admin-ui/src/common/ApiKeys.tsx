import AddIcon from '@mui/icons-material/Add';
import BlockIcon from '@mui/icons-material/Block';
import { Box, Chip, MenuItem, Stack, Table, TableBody, TableCell, TableHead, TableRow, TextField as MuiTextField, Typography } from '@mui/material';
import { useState } from 'react';
import { Button, Confirm, useDataProvider, useGetList, useNotify } from 'react-admin';
import type { AdnetDataProvider, ApiKeyRecord, KeyScope } from '../dataProvider';
import { servingSnippet } from '../dataProvider';
import { CopyButton } from './CopyButton';
import { OneTimeKeyDialog } from './OneTimeSecret';
import { formatDateTime } from './format';

/** Whose keys: an account's through the admin API, or the caller's own (self-service). */
export type KeyOwner = { accountId: string } | { own: true };

const SCOPE_HELP: Record<KeyScope, string> = {
  full: 'Everything the account may do. Keep it on your servers.',
  serve: 'Publishable: only fetches ads and reports clicks, for your own blocks and exchange campaigns. Safe in a frontend.',
};

/** A freshly issued key, shown once; a publishable one with the frontend code that uses it. */
const IssuedKeyDialog = ({ issued, onClose }: { issued: { apiKey: string; scope: KeyScope } | null; onClose: () => void }) => {
  const snippet = issued?.scope === 'serve' ? servingSnippet(window.location.origin, issued.apiKey) : null;
  return (
    <OneTimeKeyDialog apiKey={issued?.apiKey ?? null} title={issued?.scope === 'serve' ? 'New publishable key' : 'New API key'} onClose={onClose}>
      {snippet ? (
        <Box sx={{ mt: 2 }}>
          <Typography variant="subtitle2">In your frontend</Typography>
          <Box sx={{ display: 'flex', alignItems: 'flex-start', gap: 1 }}>
            <Typography
              component="pre"
              data-testid="serve-snippet"
              sx={{
                fontFamily: 'monospace',
                fontSize: 12,
                whiteSpace: 'pre-wrap',
                wordBreak: 'break-all',
                bgcolor: 'action.hover',
                p: 1,
                borderRadius: 1,
                m: 0,
              }}
            >
              {snippet}
            </Typography>
            <CopyButton value={snippet} label="Copy snippet" />
          </Box>
        </Box>
      ) : null}
    </OneTimeKeyDialog>
  );
};

/** The keys of an account (no secrets): issue one (shown once), full or publishable with allowed origins, or revoke one. */
export const ApiKeys = ({ owner }: { owner: KeyOwner }) => {
  const dataProvider = useDataProvider<AdnetDataProvider>();
  const notify = useNotify();
  const [label, setLabel] = useState('');
  const [scope, setScope] = useState<KeyScope>('full');
  const [origins, setOrigins] = useState('');
  const [issued, setIssued] = useState<{ apiKey: string; scope: KeyScope } | null>(null);
  const [revoking, setRevoking] = useState<ApiKeyRecord | null>(null);
  // The dialog's title stays while it fades out after the key is cleared.
  const [revokeTitle, setRevokeTitle] = useState('');
  const own = 'own' in owner;
  const { data: keys = [], refetch } = useGetList<ApiKeyRecord>('keys', {
    filter: own ? { own: true } : { accountId: owner.accountId },
    pagination: { page: 1, perPage: 1000 },
  });

  const issue = async () => {
    try {
      const { data } = await dataProvider.create('keys', { data: { ...owner, label, scope, allowedOrigins: origins } });
      setIssued({ apiKey: data.apiKey, scope: data.scope });
      setLabel('');
      setOrigins('');
      await refetch();
    } catch (error) {
      notify((error as Error).message, { type: 'error' });
    }
  };
  const revoke = async () => {
    try {
      await dataProvider.revokeKey(revoking!.keyId, { own });
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
      <Stack direction="row" spacing={1} alignItems="flex-start" sx={{ my: 1 }} flexWrap="wrap" useFlexGap>
        <MuiTextField size="small" name="keyLabel" label="Label of a new key" value={label} onChange={(event) => setLabel(event.target.value)} />
        <MuiTextField
          select
          size="small"
          name="keyScope"
          label="Scope"
          value={scope}
          onChange={(event) => setScope(event.target.value as KeyScope)}
          helperText={SCOPE_HELP[scope]}
          sx={{ minWidth: 160, maxWidth: 320 }}
          SelectProps={{ inputProps: { 'data-testid': 'key-scope' } }}
        >
          <MenuItem value="full">full</MenuItem>
          <MenuItem value="serve">serve (publishable)</MenuItem>
        </MuiTextField>
        <MuiTextField
          size="small"
          name="keyOrigins"
          label="Allowed origins"
          placeholder="https://app.example.com"
          value={origins}
          onChange={(event) => setOrigins(event.target.value)}
          helperText="Optional, comma-separated: browsers elsewhere get 403"
          sx={{ minWidth: 280 }}
        />
        <Button label="Issue key" onClick={issue} variant="contained">
          <AddIcon />
        </Button>
      </Stack>
      <Table size="small" data-testid="keys-table">
        <TableHead>
          <TableRow>
            <TableCell>Key id</TableCell>
            <TableCell>Scope</TableCell>
            <TableCell>Label</TableCell>
            <TableCell>Allowed origins</TableCell>
            <TableCell>Created</TableCell>
            <TableCell>State</TableCell>
            <TableCell />
          </TableRow>
        </TableHead>
        <TableBody>
          {keys.map((key) => (
            <TableRow key={key.id} data-testid={`key-${key.keyId}`}>
              <TableCell>
                <code>{key.keyId}</code>
              </TableCell>
              <TableCell>
                <Chip size="small" variant="outlined" color={key.scope === 'serve' ? 'info' : 'default'} label={key.scope} />
              </TableCell>
              <TableCell>{key.label}</TableCell>
              <TableCell>{key.allowedOrigins?.length ? key.allowedOrigins.join(', ') : 'any'}</TableCell>
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
                  <Button label="Revoke" color="error" onClick={() => (setRevoking(key), setRevokeTitle(`Revoke key ${key.keyId}?`))}>
                    <BlockIcon />
                  </Button>
                )}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      <IssuedKeyDialog issued={issued} onClose={() => setIssued(null)} />
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
