import { Datagrid, List, SearchInput, SelectInput, TextField, usePermissions } from 'react-admin';
import { isAdmin } from '../authProvider';
import { StatusButtons } from '../campaigns/StatusButtons';
import { EmptyList } from '../common/EmptyList';
import { CountField, DateTimeField, OwnerField, RateField, StatusChip } from '../common/fields';
import { BalanceField } from './BalanceField';

const STATUSES = ['onGoing', 'paused', 'ended'].map((id) => ({ id, name: id }));

const filters = [
  <SearchInput key="q" source="q" alwaysOn placeholder="Search name or id" />,
  <SelectInput key="campaignStatus" source="campaignStatus" label="Status" choices={STATUSES} alwaysOn />,
];

const Empty = () => (
  <EmptyList title="No exchange campaigns yet" createLabel="Create your first exchange campaign">
    An exchange campaign promotes your mini app in other partners&apos; apps and shows their entries in yours: every click you send earns one back.
  </EmptyList>
);

/** The default actions: filters, Create and Export (CSV). */
export const ExchangeCampaignList = () => {
  const { permissions } = usePermissions();
  return (
    <List filters={filters} empty={<Empty />} sort={{ field: 'createdAt', order: 'DESC' }} title="Exchange campaigns">
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
        {isAdmin(permissions) ? <OwnerField label="Owner" /> : null}
        <DateTimeField source="createdAt" label="Created" />
        <StatusButtons compact kind="exchange" />
      </Datagrid>
    </List>
  );
};
