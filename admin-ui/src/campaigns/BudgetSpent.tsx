import { Box, LinearProgress, Tooltip, Typography } from '@mui/material';
import { type RaRecord, useRecordContext } from 'react-admin';
import { formatUsdt } from '../common/format';

/** Share of a budget spent, 0..100 (a budget of 0 or none counts as unspent). */
export function spentShare(spent: number, budget: number | undefined): number {
  if (!budget || budget <= 0) return 0;
  return Math.min(100, Math.round((spent / budget) * 1000) / 10);
}

const colorOf = (share: number) => (share >= 100 ? 'error' : share >= 80 ? 'warning' : 'primary');

const Bar = ({ label, spent, budget, compact, testId }: { label: string; spent: number; budget: number; compact: boolean; testId: string }) => {
  const share = spentShare(spent, budget);
  const text = `${formatUsdt(spent)} of ${formatUsdt(budget)}`;
  return (
    <Tooltip title={`${label}: ${text} (${share} %)`}>
      <Box sx={{ minWidth: compact ? 120 : 260, flex: compact ? undefined : '1 1 260px' }} data-testid={testId}>
        <Typography variant={compact ? 'caption' : 'body2'} color="text.secondary" component="div">
          {compact ? `${label} ${share} %` : `${label}: ${text}`}
        </Typography>
        <LinearProgress
          variant="determinate"
          value={share}
          color={colorOf(share)}
          sx={{ height: compact ? 6 : 10, borderRadius: 5 }}
          aria-label={`${label} spent`}
        />
      </Box>
    </Tooltip>
  );
};

/**
 * The daily budget spent today (UTC day, when the daily budget starts again) and the total budget spent so far, from
 * the campaign's own record: list rows and the detail both carry `budget`, `cost` and `spentToday`, so a list page
 * costs no request per row.
 */
// `label` is the list column's header.
export const BudgetSpent = ({ compact = false }: { compact?: boolean; label?: string }) => {
  const record = useRecordContext<CampaignBudgetRecord>();
  if (!record?.budget) return null;
  return (
    <Box sx={{ display: 'flex', flexDirection: compact ? 'column' : 'row', flexWrap: 'wrap', gap: compact ? 0.5 : 3, width: compact ? undefined : '100%' }}>
      <Bar label="Today (UTC)" spent={record.spentToday ?? 0} budget={record.budget.amount} compact={compact} testId="budget-spent-today" />
      <Bar label="Total" spent={record.cost ?? 0} budget={record.budget.total} compact={compact} testId="budget-spent-total" />
    </Box>
  );
};

type CampaignBudgetRecord = RaRecord & { budget?: { amount: number; total: number }; cost?: number; spentToday?: number };
