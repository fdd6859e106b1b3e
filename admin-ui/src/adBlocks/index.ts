import ViewQuiltIcon from '@mui/icons-material/ViewQuilt';
import { AdBlockCreate, AdBlockEdit } from './AdBlockCreate';
import { AdBlockList } from './AdBlockList';
import { AdBlockShow } from './AdBlockShow';

export default { list: AdBlockList, create: AdBlockCreate, edit: AdBlockEdit, show: AdBlockShow, icon: ViewQuiltIcon };
