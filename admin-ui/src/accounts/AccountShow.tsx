import { SimpleShowLayout, TextField, useRecordContext } from 'react-admin';
import { ApiKeys } from '../common/ApiKeys';
import { DateTimeField } from '../common/fields';
import { FigureGrid } from '../common/FigureGrid';
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
      <FigureGrid
        minWidth={220}
        figures={[
          ['Name', <TextField source="name" />],
          ['Account id', <TextField source="accountId" />],
          ['Roles', <RolesField />],
          ['Created', <DateTimeField source="createdAt" />],
        ]}
      />
      <Keys />
    </SimpleShowLayout>
  </RecordShow>
);
