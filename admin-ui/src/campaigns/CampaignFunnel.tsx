import { Box, Chip, Stack, Tooltip, Typography } from '@mui/material';
import { useRecordContext } from 'react-admin';
import { formatCount, formatRate } from '../common/format';
import { eventName, funnelSteps } from './funnel';

/**
 * Impressions → clicks → each reported event of one campaign (docs/CONTRACT.md §13), with the step's rate: clicks per
 * impression, events per click. The optimization event is marked: it is what the campaign's conversions and CR count.
 */
export const CampaignFunnel = () => {
  const record = useRecordContext();
  if (!record) return null;
  const steps = funnelSteps(record);
  return (
    <Box data-testid="campaign-funnel" sx={{ maxWidth: 900 }}>
      <Stack direction="row" spacing={4} sx={{ mb: 2 }}>
        <Box>
          <Typography variant="caption" color="text.secondary">
            Optimization event
          </Typography>
          <Typography data-testid="funnel-optimization-event">{eventName(record.optimizationEvent)}</Typography>
        </Box>
        <Tooltip title="Smoothed estimate of the optimization event per click: the campaign's own rate, pulled towards the network's while it has few clicks. Not used for billing.">
          <Box>
            <Typography variant="caption" color="text.secondary">
              Estimated event rate
            </Typography>
            <Typography data-testid="funnel-estimated-rate">{formatRate(record.estimatedEventRate)}</Typography>
            <Typography variant="caption" color="text.secondary" component="div" sx={{ maxWidth: 360 }} data-testid="funnel-estimated-rate-help">
              events per click, smoothed: the campaign&apos;s own rate, pulled towards the network&apos;s while it has few clicks; ranks it, never bills it
            </Typography>
          </Box>
        </Tooltip>
      </Stack>
      {steps.map((step) => (
        <Box
          key={step.key}
          data-testid={`funnel-step-${step.key}`}
          sx={{ display: 'grid', gridTemplateColumns: '140px 1fr 120px 110px', alignItems: 'center', gap: 2, py: 0.75 }}
        >
          <Stack direction="row" spacing={1} alignItems="center">
            <Typography variant="body2">{step.label}</Typography>
            {step.optimized ? <Chip size="small" color="primary" label="optimized" data-testid="funnel-optimized" /> : null}
          </Stack>
          <Box sx={{ bgcolor: 'action.hover', borderRadius: 1, height: 18 }}>
            <Box
              sx={{
                width: `${Math.max(step.width * 100, step.count > 0 ? 1 : 0)}%`,
                height: '100%',
                borderRadius: 1,
                bgcolor: step.optimized ? 'primary.main' : step.key === 'impressions' || step.key === 'clicks' ? 'grey.500' : 'secondary.light',
              }}
            />
          </Box>
          <Typography variant="body2" align="right" data-testid={`funnel-count-${step.key}`}>
            {formatCount(step.count)}
          </Typography>
          <Typography variant="body2" color="text.secondary" align="right" data-testid={`funnel-rate-${step.key}`}>
            {step.rate === null ? '' : `${formatRate(step.rate)} ${step.key === 'clicks' ? 'CTR' : 'per click'}`}
          </Typography>
        </Box>
      ))}
    </Box>
  );
};
