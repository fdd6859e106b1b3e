import { Typography } from '@mui/material';
import { useRecordContext } from 'react-admin';

/** Clicks sent minus clicks received: positive is a creditor (ranked first), negative is in debt. */
export const BalanceField = ({ source }: { source: string; label?: string }) => {
  const record = useRecordContext();
  if (!record) return null;
  const value = Number(record[source] ?? 0);
  return (
    <Typography
      component="span"
      variant="body2"
      data-testid={`balance-${record.id}`}
      sx={{ color: value > 0 ? 'success.main' : value < 0 ? 'error.main' : 'text.primary', fontWeight: 500 }}
    >
      {value > 0 ? `+${value}` : String(value)}
    </Typography>
  );
};
