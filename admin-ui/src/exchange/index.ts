import SwapHorizIcon from '@mui/icons-material/SwapHoriz';
import { ExchangeCampaignCreate, ExchangeCampaignEdit } from './ExchangeCampaignCreate';
import { ExchangeCampaignList } from './ExchangeCampaignList';
import { ExchangeCampaignShow } from './ExchangeCampaignShow';

export default {
  list: ExchangeCampaignList,
  create: ExchangeCampaignCreate,
  edit: ExchangeCampaignEdit,
  show: ExchangeCampaignShow,
  icon: SwapHorizIcon,
};
