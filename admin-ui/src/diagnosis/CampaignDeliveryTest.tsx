import { useRecordContext } from 'react-admin';
import { DeliveryTest } from './DeliveryTest';

/** The "Test delivery" tab of a campaign's show page. */
export const CampaignDeliveryTest = () => {
  const record = useRecordContext();
  if (!record) return null;
  return <DeliveryTest key={String(record.id)} campaignId={String(record.id)} />;
};
