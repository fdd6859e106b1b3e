import { Typography } from '@mui/material';
import { useRecordContext } from 'react-admin';

/** What a balance means for the partner reading it, in words. */
export function balanceMeaning(value: number): string {
  const clicks = (n: number) => `${n} click${n === 1 ? '' : 's'}`;
  if (value > 0) return `you sent ${clicks(value)} more than you received: the exchange owes you ${clicks(value)}`;
  if (value < 0) return `you received ${clicks(-value)} more than you sent: you owe ${clicks(-value)}`;
  return 'even: you sent as many clicks as you received';
}

/**
 * Clicks sent minus clicks received: positive is a creditor (ranked first), negative is in debt. The sign alone is
 * easy to misread, so it carries its meaning as a tooltip, and with `explain` beside it.
 */
export const BalanceField = ({ source, explain = false }: { source: string; label?: string; explain?: boolean }) => {
  const record = useRecordContext();
  if (!record) return null;
  const value = Number(record[source] ?? 0);
  return (
    <span title={balanceMeaning(value)}>
      <Typography
        component="span"
        variant="body2"
        data-testid={`balance-${record.id}`}
        sx={{ color: value > 0 ? 'success.main' : value < 0 ? 'error.main' : 'text.primary', fontWeight: 500 }}
      >
        {value > 0 ? `+${value}` : String(value)}
      </Typography>
      {explain ? (
        <Typography component="span" variant="body2" color="text.secondary" data-testid="balance-meaning" sx={{ ml: 1 }}>
          ({balanceMeaning(value)})
        </Typography>
      ) : null}
    </span>
  );
};
