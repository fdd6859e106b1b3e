import { Alert, Box, Chip, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { useRecordContext } from 'react-admin';
import { formatCount } from '../common/format';
import { blockRows } from './byBlock';
import { eventName } from './funnel';

/**
 * Where the campaign's optimization events come from, per ad block (docs/CONTRACT.md §13, "Where the budget goes"):
 * its own impressions, clicks and events on each block over the last two weeks, the smoothed estimate, and whether an
 * even campaign holds back there first. Counts of this campaign only: never another advertiser's.
 */
export const CampaignByBlock = () => {
  const record = useRecordContext();
  if (!record) return null;
  const rows = blockRows(record);
  const event = eventName(record.optimizationEvent);
  return (
    <Box data-testid="campaign-by-block" sx={{ maxWidth: 900 }}>
      <Typography variant="subtitle1" sx={{ mb: 1 }}>
        Where your {event.toLowerCase()} events come from
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
        {record.budget?.pacing === 'asap'
          ? 'As fast as possible: every block is served alike.'
          : 'Paced evenly: when the campaign is ahead of its time, it holds back first on blocks marked “held back first” and keeps serving the preferred ones.'}
      </Typography>
      {rows.length === 0 ? (
        <Alert severity="info" data-testid="by-block-empty">
          No traffic on any block in the last two weeks yet.
        </Alert>
      ) : (
        <Table size="small">
          <TableHead>
            <TableRow>
              <TableCell>Ad block</TableCell>
              <TableCell align="right">Impressions</TableCell>
              <TableCell align="right">Clicks</TableCell>
              <TableCell align="right">{event}</TableCell>
              <TableCell align="right">Per 1000 impressions</TableCell>
              <TableCell>Standing</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {rows.map((row) => (
              <TableRow key={row.adBlockId} data-testid={`by-block-${row.adBlockId}`}>
                <TableCell sx={{ fontFamily: 'monospace' }}>{row.adBlockId}</TableCell>
                <TableCell align="right" data-testid="by-block-impressions">
                  {formatCount(row.impressions)}
                </TableCell>
                <TableCell align="right" data-testid="by-block-clicks">
                  {formatCount(row.clicks)}
                </TableCell>
                <TableCell align="right" data-testid="by-block-events">
                  {formatCount(row.events)}
                </TableCell>
                <TableCell align="right">{row.perMille.toLocaleString('en-US')}</TableCell>
                <TableCell data-testid="by-block-standing">
                  {row.standing === 'preferred' ? <Chip size="small" color="success" label="preferred" /> : <Chip size="small" label="held back first" />}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
    </Box>
  );
};
