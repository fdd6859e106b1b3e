import { Create } from 'react-admin';
import { RecordEdit } from '../common/RecordPages';
import { ExchangeCampaignForm } from './ExchangeCampaignForm';

export const ExchangeCampaignCreate = () => (
  <Create redirect="show">
    <ExchangeCampaignForm defaultValues={{ destination: { actionType: 'open.miniapp' } }} />
  </Create>
);

export const ExchangeCampaignEdit = () => (
  <RecordEdit>
    <ExchangeCampaignForm />
  </RecordEdit>
);
