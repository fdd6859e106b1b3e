import { Chip } from '@mui/material';
import { FunctionField, useRecordContext } from 'react-admin';
import { formatCount, formatRate, formatUsdt } from './format';

type FieldProps = { source: string; label?: string; sortable?: boolean };

export const MoneyField = ({ source, label, sortable }: FieldProps) => (
  <FunctionField source={source} label={label} sortable={sortable} render={(record: any) => formatUsdt(record?.[source])} textAlign="right" />
);

export const RateField = ({ source, label, sortable }: FieldProps) => (
  <FunctionField source={source} label={label} sortable={sortable} render={(record: any) => formatRate(record?.[source])} textAlign="right" />
);

export const CountField = ({ source, label, sortable }: FieldProps) => (
  <FunctionField source={source} label={label} sortable={sortable} render={(record: any) => formatCount(record?.[source])} textAlign="right" />
);

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
