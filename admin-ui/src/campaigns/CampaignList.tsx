import { List, SearchInput, SelectInput, TextField, usePermissions } from 'react-admin';
import { isAdmin } from '../authProvider';
import { EmptyList } from '../common/EmptyList';
import { CountField, MoneyField, OwnerField, RateField, StatusChip } from '../common/fields';
import { formatCount, formatUsdt } from '../common/format';
import { ResponsiveGrid } from '../common/ResponsiveGrid';
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

interface CampaignRow {
  name: string;
  campaignStatus: string;
  deliveryStatus: string;
  impressions: number;
  clicks: number;
  cost: number;
}

const phoneRow = {
  primaryText: (record: CampaignRow) => record.name,
  secondaryText: (record: CampaignRow) => `${record.campaignStatus} · ${record.deliveryStatus}`,
  tertiaryText: (record: CampaignRow) => `${formatCount(record.impressions)} imp. · ${formatCount(record.clicks)} clicks · ${formatUsdt(record.cost)}`,
};

/**
 * The default actions: filters, Create and Export (CSV of the rows the filters keep, every figure included). The
 * table keeps what an advertiser scans a list for; billing, views, CR and the creation time are on the show page.
 */
export const CampaignList = () => {
  const { permissions } = usePermissions();
  return (
    <List filters={filters} empty={<Empty />} sort={{ field: 'createdAt', order: 'DESC' }} title={isAdmin(permissions) ? 'All campaigns' : 'Campaigns'}>
      <ResponsiveGrid phone={phoneRow}>
        <TextField source="name" sx={{ display: 'block', minWidth: 160, maxWidth: 260, overflowWrap: 'anywhere' }} />
        <StatusChip source="campaignStatus" label="Status" />
        <StatusChip source="deliveryStatus" label="Delivery" />
        <CountField source="impressions" />
        <CountField source="clicks" />
        <RateField source="ctr" label="CTR" />
        <CountField source="conversions" />
        <MoneyField source="cost" />
        <BudgetSpent compact label="Budget spent" />
        {isAdmin(permissions) ? <OwnerField label="Owner" /> : null}
        <StatusButtons compact />
      </ResponsiveGrid>
    </List>
  );
};
