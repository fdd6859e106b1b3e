import { Box } from '@mui/material';
import { Labeled, SimpleShowLayout, TextField, useRecordContext } from 'react-admin';
import { ApiKeys } from '../common/ApiKeys';
import { DateTimeField } from '../common/fields';
import { RecordShow } from '../common/RecordPages';
import { RolesField } from './AccountList';

/** The account's keys (no secrets), through the admin API. */
const Keys = () => {
  const account = useRecordContext();
  if (!account) return null;
  return <ApiKeys owner={{ accountId: String(account.id) }} />;
};

export const AccountShow = () => (
  <RecordShow>
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
          <DateTimeField source="createdAt" />
        </Labeled>
      </Box>
      <Keys />
    </SimpleShowLayout>
  </RecordShow>
);
