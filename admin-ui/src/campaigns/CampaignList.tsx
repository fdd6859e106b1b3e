import { Datagrid, List, SearchInput, SelectInput, TextField, usePermissions } from 'react-admin';
import { isAdmin } from '../authProvider';
import { EmptyList } from '../common/EmptyList';
import { CountField, DateTimeField, MoneyField, OwnerField, RateField, StatusChip } from '../common/fields';
import { BudgetSpent } from './BudgetSpent';
import { BILLING_TYPES, CAMPAIGN_STATUSES, DELIVERY_STATUSES } from './choices';
import { StatusButtons } from './StatusButtons';

const filters = [
  <SearchInput key="q" source="q" alwaysOn placeholder="Search name or id" />,
  <SelectInput key="campaignStatus" source="campaignStatus" label="Status" choices={CAMPAIGN_STATUSES} alwaysOn />,
  <SelectInput key="deliveryStatus" source="deliveryStatus" label="Delivery" choices={DELIVERY_STATUSES} />,
  <SelectInput key="billingType" source="billingType" label="Billing" choices={BILLING_TYPES} />,
];

const Empty = () => (
  <EmptyList title="No campaigns yet" createLabel="Create your first campaign">
    A campaign is an ad with its budget, bid and targeting. Once created it serves on publishers&apos; ad blocks right away, and its figures appear here.
  </EmptyList>
);

/** The default actions: filters, Create and Export (CSV of the rows the filters keep). */
export const CampaignList = () => {
  const { permissions } = usePermissions();
  return (
    <List filters={filters} empty={<Empty />} sort={{ field: 'createdAt', order: 'DESC' }} title={isAdmin(permissions) ? 'All campaigns' : 'Campaigns'}>
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
        <BudgetSpent compact label="Budget spent" />
        {isAdmin(permissions) ? <OwnerField label="Owner" /> : null}
        <DateTimeField source="createdAt" label="Created" />
        <StatusButtons compact />
      </Datagrid>
    </List>
  );
};
