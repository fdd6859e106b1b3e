import { Alert, Box, Card, CardContent, Chip, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { Link, useDataProvider, useRecordContext } from 'react-admin';
import type { AdnetDataProvider, VerificationHealth } from '../dataProvider';
import { formatDateTime } from '../common/format';
import { useLoaded } from '../common/useLoaded';

const OUTCOME_COLORS: Record<string, 'success' | 'warning' | 'error' | 'default'> = {
  verified: 'success',
  unverified: 'warning',
  failed: 'error',
};

/** Verification health (GET ad/campaign/verification): clicks by outcome and the latest calls. */
export const VerificationPanel = () => {
  const record = useRecordContext();
  const dataProvider = useDataProvider<AdnetDataProvider>();
  const id = record?.id;
  const version = record?.updatedAt;
  const { data: health, error } = useLoaded<VerificationHealth>(() => (id ? dataProvider.verificationHealth(String(id)) : null), [dataProvider, id, version]);

  if (error) return <Alert severity="error">{error}</Alert>;
  if (!health) return null;
  if (!health.verificationUrl) {
    return (
      <Alert severity="info" data-testid="verification-off">
        No verification URL: clicks are counted without asking your endpoint. Add one with Edit; calls are signed with the webhook secret shown on{' '}
        <Link to="/me">My account</Link>.
      </Alert>
    );
  }
  const counts = health.clicks;
  return (
    <Box data-testid="verification-health">
      <Typography variant="body2" gutterBottom>
        Endpoint: <code>{health.verificationUrl}</code>
      </Typography>
      <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap', my: 2 }}>
        {(['verified', 'unverified', 'pending', 'error'] as const).map((outcome) => (
          <Card key={outcome} variant="outlined" sx={{ minWidth: 140 }}>
            <CardContent>
              <Typography variant="overline">{outcome}</Typography>
              <Typography variant="h5" data-testid={`verification-${outcome}`}>
                {counts[outcome]}
              </Typography>
            </CardContent>
          </Card>
        ))}
      </Box>
      <Typography variant="subtitle1">Recent calls</Typography>
      {health.calls.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          No calls yet: they are made a while after each counted click.
        </Typography>
      ) : (
        <Table size="small">
          <TableHead>
            <TableRow>
              <TableCell>When</TableCell>
              <TableCell>Click</TableCell>
              <TableCell>Try</TableCell>
              <TableCell>Outcome</TableCell>
              <TableCell>HTTP</TableCell>
              <TableCell>ms</TableCell>
              <TableCell>Error</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {health.calls.map((call, index) => (
              <TableRow key={`${call.clickId}-${call.attempt}-${index}`}>
                <TableCell>{formatDateTime(call.calledAt)}</TableCell>
                <TableCell>
                  <code>{call.clickId}</code>
                </TableCell>
                <TableCell>{call.attempt}</TableCell>
                <TableCell>
                  <Chip size="small" label={call.outcome} color={OUTCOME_COLORS[call.outcome] ?? 'default'} />
                </TableCell>
                <TableCell>{call.httpStatus ?? '—'}</TableCell>
                <TableCell>{call.latencyMs}</TableCell>
                <TableCell>{call.error ?? ''}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
    </Box>
  );
};
