import { Create, Edit, SaveButton, ShowButton, Toolbar, TopToolbar } from 'react-admin';
import { ExchangeCampaignForm } from './ExchangeCampaignForm';

export const ExchangeCampaignCreate = () => (
  <Create redirect="show">
    <ExchangeCampaignForm defaultValues={{ destination: { actionType: 'open.miniapp' } }} />
  </Create>
);

export const ExchangeCampaignEdit = () => (
  <Edit mutationMode="pessimistic" redirect="show" actions={<TopToolbar><ShowButton /></TopToolbar>}>
    <ExchangeCampaignForm toolbar={<Toolbar><SaveButton /></Toolbar>} />
  </Edit>
);
