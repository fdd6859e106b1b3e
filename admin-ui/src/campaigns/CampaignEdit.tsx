import { Edit, SaveButton, ShowButton, Toolbar, TopToolbar } from 'react-admin';
import { CampaignForm } from './CampaignForm';
import { FRESH_RECORD } from '../common/freshRecord';

const Actions = () => (
  <TopToolbar>
    <ShowButton />
  </TopToolbar>
);

// Campaigns are ended, never deleted: the toolbar only saves.
const FormToolbar = () => (
  <Toolbar>
    <SaveButton />
  </Toolbar>
);

/** Pessimistic: the API checks the merged campaign, and its field errors must reach the form. */
export const CampaignEdit = () => (
  <Edit queryOptions={FRESH_RECORD} mutationMode="pessimistic" redirect="show" actions={<Actions />}>
    <CampaignForm toolbar={<FormToolbar />} />
  </Edit>
);
