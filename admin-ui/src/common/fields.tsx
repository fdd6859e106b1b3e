import { Chip } from '@mui/material';
import { FunctionField, type RaRecord, ReferenceField, TextField, usePermissions, useRecordContext } from 'react-admin';
import { isAdmin, storedAccount } from '../authProvider';
import { formatCount, formatDateTime, formatRate, formatUsdt } from './format';

type FieldProps = { source: string; label?: string; sortable?: boolean };

export const MoneyField = ({ source, label, sortable }: FieldProps) => (
  <FunctionField
    source={source}
    label={label}
    sortable={sortable}
    render={(record: RaRecord) => formatUsdt(record?.[source])}
    textAlign="right"
    sx={{ whiteSpace: 'nowrap' }}
  />
);

export const RateField = ({ source, label, sortable }: FieldProps) => (
  <FunctionField source={source} label={label} sortable={sortable} render={(record: RaRecord) => formatRate(record?.[source])} textAlign="right" />
);

export const CountField = ({ source, label, sortable }: FieldProps) => (
  <FunctionField source={source} label={label} sortable={sortable} render={(record: RaRecord) => formatCount(record?.[source])} textAlign="right" />
);

/** A time (ms since epoch) in the one format of the panel: the browser's locale and timezone. */
export const DateTimeField = ({ source, label, sortable }: FieldProps) => (
  <FunctionField source={source} label={label} sortable={sortable} render={(record: RaRecord) => formatDateTime(record?.[source])} />
);

/**
 * The owner of a record (`userId`) by name: the logged-in account's own name, or for an admin the account's name
 * linking to its page.
 */
export const OwnerField = ({ source = 'userId', label = 'Owner' }: Partial<FieldProps>) => {
  const record = useRecordContext();
  const { permissions } = usePermissions();
  const me = storedAccount();
  if (!record) return null;
  if (me && record[source] === me.accountId) return <span data-testid="owner">{me.name}</span>;
  if (!isAdmin(permissions)) return <span data-testid="owner">{record[source]}</span>;
  return (
    <ReferenceField source={source} reference="accounts" label={label} link="show">
      <TextField source="name" data-testid="owner" />
    </ReferenceField>
  );
};

const STATUS_COLORS: Record<string, string> = {
  onGoing: '#2e7d32',
  delivering: '#2e7d32',
  paused: '#ed6c02',
  inReview: '#0288d1',
  scheduled: '#0288d1',
  ended: '#616161',
  finished: '#616161',
  budgetSpent: '#c62828',
  dailyBudgetSpent: '#ef6c00',
};

export const StatusChip = ({ source }: FieldProps) => {
  const record = useRecordContext();
  const value = record?.[source];
  if (!value) return null;
  return (
    <Chip
      size="small"
      label={value}
      sx={{ bgcolor: STATUS_COLORS[value] ?? '#757575', color: '#fff', alignSelf: 'flex-start' }}
      data-testid={`${source}-${record?.id}`}
    />
  );
};
