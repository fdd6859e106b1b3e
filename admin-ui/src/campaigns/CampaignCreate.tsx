import { Create } from 'react-admin';
import { CampaignForm } from './CampaignForm';
import { campaignDefaults } from './defaults';

export const CampaignCreate = () => (
  <Create redirect="show">
    <CampaignForm defaultValues={campaignDefaults(Date.now())} />
  </Create>
);
