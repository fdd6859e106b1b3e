import CampaignIcon from '@mui/icons-material/Campaign';
import { CampaignCreate } from './CampaignCreate';
import { CampaignEdit } from './CampaignEdit';
import { CampaignList } from './CampaignList';
import { CampaignShow } from './CampaignShow';

export default { list: CampaignList, create: CampaignCreate, edit: CampaignEdit, show: CampaignShow, icon: CampaignIcon };
