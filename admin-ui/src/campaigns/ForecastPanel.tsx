import InsightsIcon from '@mui/icons-material/Insights';
import { Alert, Box, Card, CardContent, Typography } from '@mui/material';
import { useState } from 'react';
import { Button, useDataProvider, useNotify, useRecordContext } from 'react-admin';
import { useFormContext } from 'react-hook-form';
import { campaignBody, type AdnetDataProvider, type CampaignForecast } from '../dataProvider';
import { formatUsdt } from '../common/format';

const LIMITS: Record<CampaignForecast['limitedBy'], string> = {
  budget: 'the daily budget: it would be spent every day',
  bid: 'the bid: campaigns bidding more win many of the requests it matches',
  inventory: 'the traffic: too few requests match the targeting',
  schedule: 'the schedule: the window has ended, or is too short to spend the day',
};

/** The figures of a forecast, each under its label, and what limits the delivery. */
const ForecastFigures = ({ forecast }: { forecast: CampaignForecast }) => {
  const figures: [string, string][] = [
    ['Requests a day', forecast.dailyRequests.toLocaleString()],
    ['Impressions a day', forecast.dailyImpressions.toLocaleString()],
    ['Clicks a day', forecast.dailyClicks.toLocaleString()],
    ['Spend a day', formatUsdt(forecast.dailySpend)],
    ['Days to spend the total', forecast.daysToSpendTotal === null ? '—' : forecast.daysToSpendTotal.toLocaleString()],
  ];
  return (
    <Box data-testid="forecast">
      <Box sx={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(150px, 1fr))', gap: 2, mb: 1 }}>
        {figures.map(([label, value]) => (
          <Box key={label}>
            <Typography variant="caption" color="text.secondary">
              {label}
            </Typography>
            <Typography variant="h6" data-testid={`forecast-${label}`}>
              {value}
            </Typography>
          </Box>
        ))}
      </Box>
      <Alert severity={forecast.limitedBy === 'budget' ? 'success' : 'info'} data-testid="forecast-limit">
        Limited by {LIMITS[forecast.limitedBy]}.
      </Alert>
    </Box>
  );
};

function useForecast() {
  const dataProvider = useDataProvider<AdnetDataProvider>();
  const notify = useNotify();
  const [forecast, setForecast] = useState<CampaignForecast | null>(null);
  const [loading, setLoading] = useState(false);
  const run = async (body: Record<string, unknown>) => {
    setLoading(true);
    try {
      setForecast(await dataProvider.forecastCampaign(body));
    } catch (error) {
      notify((error as Error).message, { type: 'error' });
    } finally {
      setLoading(false);
    }
  };
  return { forecast, loading, run };
}

const EXPLANATION =
  'The ad requests of the last 7 days, sampled, replayed through this targeting and bid against the campaigns live now, ' +
  'scaled to a day. Frequency caps are not replayed.';

/** The explanation, the Forecast button and, once answered, the figures of the body `bodyOf` gives at the press. */
const ForecastRunner = ({ bodyOf }: { bodyOf: () => Record<string, unknown> }) => {
  const { forecast, loading, run } = useForecast();
  return (
    <>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        {EXPLANATION}
      </Typography>
      <Button label="Forecast" variant="outlined" disabled={loading} onClick={() => void run(bodyOf())}>
        <InsightsIcon />
      </Button>
      {forecast ? (
        <Box sx={{ mt: 2 }}>
          <ForecastFigures forecast={forecast} />
        </Box>
      ) : null}
    </>
  );
};

/** In the campaign form: the forecast of what the form holds now (an edit forecasts without competing with itself). */
export const FormForecast = () => {
  const { getValues } = useFormContext();
  const record = useRecordContext();
  return (
    <Box sx={{ width: '100%', maxWidth: 900 }}>
      <ForecastRunner bodyOf={() => ({ ...campaignBody(getValues()), ...(record?.id ? { campaignId: String(record.id) } : {}) })} />
    </Box>
  );
};

/** On the campaign: the forecast of its current settings. */
export const CampaignForecastCard = () => {
  const record = useRecordContext();
  if (!record) return null;
  return (
    <Card variant="outlined" sx={{ width: '100%' }} data-testid="forecast-card">
      <CardContent>
        <Typography variant="h6">Forecast</Typography>
        <ForecastRunner bodyOf={() => ({ ...campaignBody(record), campaignId: String(record.id) })} />
      </CardContent>
    </Card>
  );
};
