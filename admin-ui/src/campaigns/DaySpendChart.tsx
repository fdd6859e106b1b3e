import { Alert, Box, Typography } from '@mui/material';
import { useDataProvider, useRecordContext } from 'react-admin';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { AdnetDataProvider, SeriesPoint } from '../dataProvider';
import { formatUsdt } from '../common/format';
import { useLoaded } from '../common/useLoaded';
import { dayOf, daySpendPoints, type DaySpendFacts } from './daySpend';

const PACING_WORDS: Record<string, string> = {
  onPace: 'on pace: spending along the even line',
  ahead: 'ahead of the even line: held back until the line moves on',
  behind: 'behind the line: its traffic is below the budget, every request it wins is served',
  notPaced: 'not paced (asap, or outside its window today)',
};

/**
 * "Spend over the day": the campaign's spend today, hour by hour and summed, with the even pacing line drawn beside it
 * (docs/CONTRACT.md §16), and its pacing status in words.
 */
export const DaySpendChart = () => {
  const record = useRecordContext<DaySpendFacts & { id: string; pacingStatus?: string; updatedAt?: number }>();
  const dataProvider = useDataProvider<AdnetDataProvider>();
  const now = Date.now();
  const { data: hourly, error } = useLoaded<SeriesPoint[]>(() => {
    if (!record?.budgetResetsAt) return null;
    const day = dayOf(record);
    return dataProvider.campaignSeries(String(record.id), { from: day.start, to: Math.min(day.end, now), granularity: 'hour' });
  }, [dataProvider, record?.id, record?.budgetResetsAt, record?.updatedAt]);
  if (!record?.budgetResetsAt) return null;
  const points = daySpendPoints(
    record,
    (hourly ?? []).map((point) => ({ time: point.time, cost: Number(point.cost ?? 0) })),
    now,
  );
  return (
    <Box data-testid="day-spend" sx={{ mt: 2 }}>
      <Typography variant="subtitle1">Spend over the day</Typography>
      <Typography variant="body2" color="text.secondary" data-testid="pacing-status">
        Pacing {record.budget.pacing ?? 'even'}: {PACING_WORDS[record.pacingStatus ?? 'notPaced']}. The daily budget starts again{' '}
        {new Date(record.budgetResetsAt).toLocaleString()}.
      </Typography>
      {error && <Alert severity="error">{error}</Alert>}
      <Box sx={{ width: '100%', height: 220 }}>
        <ResponsiveContainer>
          <LineChart data={points} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="time" tickFormatter={(time: number) => new Date(time).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })} />
            <YAxis width={64} />
            <Tooltip labelFormatter={(time) => new Date(Number(time)).toLocaleString()} formatter={(value) => formatUsdt(Number(value))} />
            <Legend />
            <Line type="monotone" dataKey="spent" name="Spent today" stroke="#d32f2f" dot={false} isAnimationActive={false} />
            <Line type="linear" dataKey="even" name="Even line" stroke="#1976d2" strokeDasharray="6 4" dot={false} isAnimationActive={false} />
          </LineChart>
        </ResponsiveContainer>
      </Box>
    </Box>
  );
};
