import PeopleIcon from '@mui/icons-material/People';
import { AccountCreate } from './AccountCreate';
import { AccountList } from './AccountList';
import { AccountShow } from './AccountShow';

export default { list: AccountList, create: AccountCreate, show: AccountShow, icon: PeopleIcon };
