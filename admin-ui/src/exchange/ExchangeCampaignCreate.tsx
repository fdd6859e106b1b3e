import { Create, Edit, SaveButton, ShowButton, Toolbar, TopToolbar } from 'react-admin';
import { ExchangeCampaignForm } from './ExchangeCampaignForm';
import { FRESH_RECORD } from '../common/freshRecord';

export const ExchangeCampaignCreate = () => (
  <Create redirect="show">
    <ExchangeCampaignForm defaultValues={{ destination: { actionType: 'open.miniapp' } }} />
  </Create>
);

export const ExchangeCampaignEdit = () => (
  <Edit
    queryOptions={FRESH_RECORD}
    mutationMode="pessimistic"
    redirect="show"
    actions={
      <TopToolbar>
        <ShowButton />
      </TopToolbar>
    }
  >
    <ExchangeCampaignForm
      toolbar={
        <Toolbar>
          <SaveButton />
        </Toolbar>
      }
    />
  </Edit>
);
