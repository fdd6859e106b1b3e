import ViewQuiltIcon from '@mui/icons-material/ViewQuilt';
import { AdBlockCreate } from './AdBlockCreate';
import { AdBlockList } from './AdBlockList';
import { AdBlockShow } from './AdBlockShow';

export default { list: AdBlockList, create: AdBlockCreate, show: AdBlockShow, icon: ViewQuiltIcon };
