import { CreateButton, Datagrid, DateField, FilterButton, List, SearchInput, SelectInput, TextField, TopToolbar, usePermissions } from 'react-admin';
import { isAdmin } from '../authProvider';
import { CountField, MoneyField, RateField, StatusChip } from '../common/fields';
import { BILLING_TYPES, CAMPAIGN_STATUSES, DELIVERY_STATUSES } from './choices';
import { StatusButtons } from './StatusButtons';

const filters = [
  <SearchInput key="q" source="q" alwaysOn placeholder="Search name or id" />,
  <SelectInput key="campaignStatus" source="campaignStatus" label="Status" choices={CAMPAIGN_STATUSES} alwaysOn />,
  <SelectInput key="deliveryStatus" source="deliveryStatus" label="Delivery" choices={DELIVERY_STATUSES} />,
  <SelectInput key="billingType" source="billingType" label="Billing" choices={BILLING_TYPES} />,
];

const Actions = () => (
  <TopToolbar>
    <FilterButton />
    <CreateButton />
  </TopToolbar>
);

export const CampaignList = () => {
  const { permissions } = usePermissions();
  return (
    <List filters={filters} actions={<Actions />} sort={{ field: 'createdAt', order: 'DESC' }} title={isAdmin(permissions) ? 'All campaigns' : 'Campaigns'}>
      <Datagrid rowClick="show" bulkActionButtons={false}>
        <TextField source="name" />
        <StatusChip source="campaignStatus" label="Status" />
        <StatusChip source="deliveryStatus" label="Delivery" />
        <TextField source="billingType" label="Billing" />
        <CountField source="impressions" />
        <CountField source="views" label="Views (SDK)" />
        <CountField source="clicks" />
        <RateField source="ctr" label="CTR" />
        <CountField source="conversions" />
        <RateField source="cr" label="CR" />
        <MoneyField source="cost" />
        {isAdmin(permissions) ? <TextField source="userId" label="Owner" /> : null}
        <DateField source="createdAt" showTime label="Created" />
        <StatusButtons compact />
      </Datagrid>
    </List>
  );
};
