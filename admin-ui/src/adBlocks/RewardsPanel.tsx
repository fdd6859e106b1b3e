import { Alert, Box, Button, Chip, Stack, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { useState } from 'react';
import { useDataProvider, useNotify, useRecordContext } from 'react-admin';
import type { AdnetDataProvider, RewardDelivery, RewardTestResult } from '../dataProvider';
import { formatDateTime } from '../common/format';
import { useLoaded } from '../common/useLoaded';

const STATUS_COLORS: Record<RewardDelivery['status'], 'success' | 'warning' | 'error'> = { delivered: 'success', pending: 'warning', failed: 'error' };

/** A rewarded block's reward callbacks (GET ad/block/rewards), with replay and a test call (docs/REWARDED_ADS.md). */
export const RewardsPanel = () => {
  const record = useRecordContext();
  const dataProvider = useDataProvider<AdnetDataProvider>();
  const notify = useNotify();
  const [version, setVersion] = useState(0);
  const [tested, setTested] = useState<RewardTestResult | null>(null);
  const id = record?.id;
  const { data: log, error } = useLoaded(() => (id ? dataProvider.rewardLog(String(id)) : null), [dataProvider, id, version]);
  if (!record) return null;

  const test = () =>
    dataProvider.testReward(String(id)).then(
      (result) => setTested(result),
      (caught: unknown) => notify((caught as Error).message, { type: 'error' }),
    );
  const replay = (eventId: string) =>
    dataProvider.replayReward(eventId).then(
      () => {
        notify('Reward callback queued again', { type: 'success' });
        setVersion((value) => value + 1);
      },
      (caught: unknown) => notify((caught as Error).message, { type: 'error' }),
    );

  return (
    <Box data-testid="rewards-panel">
      <Typography variant="body2" gutterBottom>
        {record.format === 'rewarded' ? 'Rewarded block' : 'Banner block: completions are counted, no rewards are sent'}
        {record.rewardUrl ? (
          <>
            {' '}
            · reward URL <code>{String(record.rewardUrl)}</code>
          </>
        ) : (
          ' · no reward URL'
        )}{' '}
        · minimum view {Number(record.minViewMs) / 1000} s · at most {String(record.dailyRewardCap)} rewards per user a day · completions{' '}
        {String(record.completions ?? 0)} · capped {String(record.rewardsCapped ?? 0)}
      </Typography>
      <Stack direction="row" spacing={1} alignItems="center" sx={{ my: 1 }}>
        <Button variant="outlined" size="small" onClick={test} disabled={!record.rewardUrl} data-testid="reward-test">
          Send test call
        </Button>
        <Button size="small" onClick={() => setVersion((value) => value + 1)} data-testid="rewards-reload">
          Reload log
        </Button>
        {tested ? (
          <Typography variant="body2" data-testid="reward-test-result">
            {tested.statusCode === null ? `No answer: ${tested.error ?? ''}` : `HTTP ${tested.statusCode}${tested.error ? ` (${tested.error})` : ''}`} in{' '}
            {tested.ms} ms
          </Typography>
        ) : null}
      </Stack>
      {error ? <Alert severity="error">{error}</Alert> : null}
      {log && log.rewards.length === 0 ? (
        <Typography variant="body2" color="text.secondary" data-testid="rewards-empty">
          No rewards yet: each completion counted on this block sends one.
        </Typography>
      ) : null}
      {log && log.rewards.length > 0 ? (
        <Table size="small" data-testid="rewards-table">
          <TableHead>
            <TableRow>
              <TableCell>When</TableCell>
              <TableCell>Event</TableCell>
              <TableCell>User</TableCell>
              <TableCell>Status</TableCell>
              <TableCell>Attempts</TableCell>
              <TableCell>Last status</TableCell>
              <TableCell>Last error</TableCell>
              <TableCell />
            </TableRow>
          </TableHead>
          <TableBody>
            {log.rewards.map((reward) => (
              <TableRow key={reward.eventId} data-testid="reward-row">
                <TableCell>{formatDateTime(reward.createdAt)}</TableCell>
                <TableCell>
                  <code>{reward.eventId}</code>
                </TableCell>
                <TableCell>{reward.messengerUserId}</TableCell>
                <TableCell>
                  <Chip size="small" label={reward.status} color={STATUS_COLORS[reward.status]} />
                </TableCell>
                <TableCell>{reward.attempts}</TableCell>
                <TableCell>{reward.lastStatusCode ?? '—'}</TableCell>
                <TableCell>{reward.lastError ?? ''}</TableCell>
                <TableCell>
                  <Button size="small" onClick={() => replay(reward.eventId)}>
                    Replay
                  </Button>
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      ) : null}
    </Box>
  );
};
