import { List, SearchInput, SelectInput, TextField, usePermissions } from 'react-admin';
import { isAdmin } from '../authProvider';
import { StatusButtons } from '../campaigns/StatusButtons';
import { EmptyList } from '../common/EmptyList';
import { CountField, OwnerField, RateField, StatusChip } from '../common/fields';
import { formatCount } from '../common/format';
import { ResponsiveGrid } from '../common/ResponsiveGrid';
import { BalanceField } from './BalanceField';

const STATUSES = ['onGoing', 'paused', 'ended'].map((id) => ({ id, name: id }));

const filters = [
  <SearchInput key="q" source="q" alwaysOn placeholder="Search name or id" />,
  <SelectInput key="campaignStatus" source="campaignStatus" label="Status" choices={STATUSES} alwaysOn />,
];

interface ExchangeRow {
  name: string;
  campaignStatus: string;
  clicksSent: number;
  clicksReceived: number;
}

const phoneRow = {
  primaryText: (record: ExchangeRow) => record.name,
  secondaryText: (record: ExchangeRow) => record.campaignStatus,
  tertiaryText: (record: ExchangeRow) => `${formatCount(record.clicksSent)} clicks sent · ${formatCount(record.clicksReceived)} received`,
};

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
      <ResponsiveGrid phone={phoneRow}>
        <TextField source="name" sx={{ display: 'block', minWidth: 140, maxWidth: 260, overflowWrap: 'anywhere' }} />
        <StatusChip source="campaignStatus" label="Status" />
        <CountField source="impressions" label="Shown" />
        <CountField source="clicksSent" label="Clicks sent" />
        <CountField source="clicksReceived" label="Clicks received" />
        <BalanceField source="balance" label="Balance" />
        <RateField source="ctr" label="CTR" />
        <CountField source="conversions" label="Conversions" />
        {isAdmin(permissions) ? <OwnerField label="Owner" /> : null}
        <StatusButtons compact kind="exchange" />
      </ResponsiveGrid>
    </List>
  );
};
