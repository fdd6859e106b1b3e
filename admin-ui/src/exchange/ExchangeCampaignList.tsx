import { CreateButton, Datagrid, DateField, FilterButton, List, SearchInput, SelectInput, TextField, TopToolbar, usePermissions } from 'react-admin';
import { isAdmin } from '../authProvider';
import { StatusButtons } from '../campaigns/StatusButtons';
import { CountField, RateField, StatusChip } from '../common/fields';
import { BalanceField } from './BalanceField';

const STATUSES = ['onGoing', 'paused', 'ended'].map((id) => ({ id, name: id }));

const filters = [
  <SearchInput key="q" source="q" alwaysOn placeholder="Search name or id" />,
  <SelectInput key="campaignStatus" source="campaignStatus" label="Status" choices={STATUSES} alwaysOn />,
];

export const ExchangeCampaignList = () => {
  const { permissions } = usePermissions();
  return (
    <List
      filters={filters}
      sort={{ field: 'createdAt', order: 'DESC' }}
      actions={
        <TopToolbar>
          <FilterButton />
          <CreateButton />
        </TopToolbar>
      }
      title="Exchange campaigns"
    >
      <Datagrid rowClick="show" bulkActionButtons={false}>
        <TextField source="name" />
        <StatusChip source="campaignStatus" label="Status" />
        <CountField source="impressions" label="Shown" />
        <CountField source="impressionsSent" label="Entries shown" />
        <CountField source="clicksSent" label="Clicks sent" />
        <CountField source="clicksReceived" label="Clicks received" />
        <BalanceField source="balance" label="Balance" />
        <RateField source="ctr" label="CTR" />
        <CountField source="conversions" label="Conversions" />
        <RateField source="cr" label="CR" />
        {isAdmin(permissions) ? <TextField source="userId" label="Owner" /> : null}
        <DateField source="createdAt" showTime label="Created" />
        <StatusButtons compact kind="exchange" />
      </Datagrid>
    </List>
  );
};
