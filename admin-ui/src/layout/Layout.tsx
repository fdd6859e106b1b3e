import AssessmentIcon from '@mui/icons-material/Assessment';
import AccountCircleIcon from '@mui/icons-material/AccountCircle';
import QueueIcon from '@mui/icons-material/Queue';
import RateReviewIcon from '@mui/icons-material/RateReview';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import { Layout as RaLayout, Menu as RaMenu, usePermissions, type LayoutProps } from 'react-admin';
import { hasRole, isAdmin } from '../authProvider';
import { PageError } from './PageError';

/** The resources the key's roles allow are registered (see App.tsx); the menu lists those plus the extras. */
const Menu = () => {
  const { permissions } = usePermissions();
  return (
    <RaMenu>
      <RaMenu.DashboardItem />
      <RaMenu.ResourceItems />
      {hasRole(permissions, 'publisher') ? <RaMenu.Item to="/profiles/import" primaryText="Profile import" leftIcon={<UploadFileIcon />} /> : null}
      {hasRole(permissions, 'advertiser') || hasRole(permissions, 'publisher') ? (
        <RaMenu.Item to="/reports" primaryText="Reports" leftIcon={<AssessmentIcon />} />
      ) : null}
      <RaMenu.Item to="/me" primaryText="My account" leftIcon={<AccountCircleIcon />} />
      {isAdmin(permissions) ? <RaMenu.Item to="/queues" primaryText="Queues" leftIcon={<QueueIcon />} data-testid="queues-link" /> : null}
      {isAdmin(permissions) ? <RaMenu.Item to="/reviews" primaryText="Reviews" leftIcon={<RateReviewIcon />} data-testid="reviews-link" /> : null}
    </RaMenu>
  );
};

/** A wide table scrolls inside the page instead of widening it past the app bar (react-admin's layout fits its content). */
const FIT_TO_WINDOW = { minWidth: 0, '& .RaLayout-content': { minWidth: 0 }, '& .RaDatagrid-tableWrapper': { overflowX: 'auto' } };

export const Layout = (props: LayoutProps) => <RaLayout {...props} menu={Menu} error={PageError} sx={FIT_TO_WINDOW} />;
