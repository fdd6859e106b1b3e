import { RecordEdit } from '../common/RecordPages';
import { CampaignForm } from './CampaignForm';

// Campaigns are ended, never deleted: the form's toolbar only saves.
export const CampaignEdit = () => (
  <RecordEdit>
    <CampaignForm />
  </RecordEdit>
);
