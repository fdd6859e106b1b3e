import { BooleanField, List, TextField, usePermissions } from 'react-admin';
import { isAdmin } from '../authProvider';
import { EmptyList } from '../common/EmptyList';
import { CountField, DateTimeField, MoneyField, OwnerField, RateField } from '../common/fields';
import { formatCount, formatUsdt } from '../common/format';
import { ResponsiveGrid } from '../common/ResponsiveGrid';
import { BlockId } from './BlockId';

const Empty = () => (
  <EmptyList title="No ad blocks yet" createLabel="Create your first ad block">
    An ad block is a place in your app where ads appear. Create one, then fetch ads for its id from your app: each impression and click earns you money.
  </EmptyList>
);

interface AdBlockRow {
  name: string;
  id: string;
  impressions: number;
  clicks: number;
  earnings: number;
}

const phoneRow = {
  primaryText: (record: AdBlockRow) => record.name,
  secondaryText: (record: AdBlockRow) => record.id,
  tertiaryText: (record: AdBlockRow) => `${formatCount(record.impressions)} imp. · ${formatCount(record.clicks)} clicks · ${formatUsdt(record.earnings)}`,
};

/** The default actions: Create and Export (CSV). */
export const AdBlockList = () => {
  const { permissions } = usePermissions();
  return (
    <List sort={{ field: 'createdAt', order: 'DESC' }} empty={<Empty />} title="Ad blocks">
      <ResponsiveGrid phone={phoneRow}>
        <TextField source="name" sx={{ display: 'block', minWidth: 140, maxWidth: 260, overflowWrap: 'anywhere' }} />
        <BlockId label="Ad block id" />
        <BooleanField source="requireSignedViewer" label="Signed viewers" />
        <CountField source="impressions" />
        <CountField source="views" label="Views (SDK)" />
        <CountField source="clicks" />
        <RateField source="ctr" label="CTR" />
        <MoneyField source="earnings" />
        {isAdmin(permissions) ? <OwnerField label="Owner" /> : null}
        <DateTimeField source="createdAt" label="Created" />
      </ResponsiveGrid>
    </List>
  );
};
