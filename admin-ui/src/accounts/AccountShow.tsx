import { Box } from '@mui/material';
import { DateField, Labeled, ListButton, Show, SimpleShowLayout, TextField, TopToolbar, useRecordContext } from 'react-admin';
import { ApiKeys } from '../common/ApiKeys';
import { RolesField } from './AccountList';
import { FRESH_RECORD } from '../common/freshRecord';

/** The account's keys (no secrets), through the admin API. */
const Keys = () => {
  const account = useRecordContext();
  if (!account) return null;
  return <ApiKeys owner={{ accountId: String(account.id) }} />;
};

export const AccountShow = () => (
  <Show
    queryOptions={FRESH_RECORD}
    actions={
      <TopToolbar>
        <ListButton />
      </TopToolbar>
    }
  >
    <SimpleShowLayout>
      <Box sx={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(220px, 1fr))', gap: 2, width: '100%' }}>
        <Labeled label="Name">
          <TextField source="name" />
        </Labeled>
        <Labeled label="Account id">
          <TextField source="accountId" />
        </Labeled>
        <Labeled label="Roles">
          <RolesField />
        </Labeled>
        <Labeled label="Created">
          <DateField source="createdAt" showTime />
        </Labeled>
      </Box>
      <Keys />
    </SimpleShowLayout>
  </Show>
);
