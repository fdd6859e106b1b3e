import { Card, CardContent, Typography } from '@mui/material';
import { Title } from 'react-admin';
import { useSearchParams } from 'react-router-dom';
import { DeliveryTest } from './DeliveryTest';

/** The "Test delivery" page of an ad block (linked from its show page): which ads it would show, and why. */
export const DeliveryTestPage = () => {
  const [params] = useSearchParams();
  const adBlockId = params.get('adBlockId') ?? undefined;
  const campaignId = params.get('campaignId') ?? undefined;
  return (
    <Card sx={{ mt: 2 }}>
      <Title title="Test delivery" />
      <CardContent>
        <Typography variant="h6" gutterBottom>
          Test delivery{adBlockId ? ` of ad block ${adBlockId}` : ''}
          {campaignId ? ` of campaign ${campaignId}` : ''}
        </Typography>
        <DeliveryTest key={`${adBlockId}|${campaignId}`} adBlockId={adBlockId} campaignId={campaignId} />
      </CardContent>
    </Card>
  );
};
