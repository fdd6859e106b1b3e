import { Admin, CustomRoutes, Resource } from 'react-admin';
import { Route } from 'react-router-dom';
import { MyAccount } from './account/MyAccount';
import accounts from './accounts';
import adBlocks from './adBlocks';
import { authProvider, hasRole, isAdmin } from './authProvider';
import campaigns from './campaigns';
import { Dashboard } from './dashboard/Dashboard';
import { DeliveryTestPage } from './diagnosis';
import exchangeCampaigns from './exchange';
import { dataProvider } from './dataProvider';
import { i18nProvider } from './i18n';
import { Layout } from './layout/Layout';
import { PageError } from './layout/PageError';
import { QueuesPage } from './layout/QueuesPage';
import { LoginPage } from './login/LoginPage';
import { ProfileImport } from './profiles/ProfileImport';
import { ReviewQueuePage } from './reviews/ReviewQueuePage';
import { ReportsPage } from './reports/ReportsPage';

/** Resources follow the roles of the logged-in key; admin holds them all. */
export const App = () => (
  <Admin
    title="Ad network"
    dataProvider={dataProvider}
    authProvider={authProvider}
    i18nProvider={i18nProvider}
    error={PageError}
    loginPage={LoginPage}
    dashboard={Dashboard}
    layout={Layout}
    requireAuth
    disableTelemetry
  >
    {(permissions: unknown) => (
      <>
        {hasRole(permissions, 'advertiser') ? <Resource name="campaigns" {...campaigns} recordRepresentation="name" /> : null}
        {hasRole(permissions, 'publisher') ? <Resource name="adBlocks" options={{ label: 'Ad blocks' }} {...adBlocks} recordRepresentation="name" /> : null}
        {hasRole(permissions, 'partner') ? (
          <Resource name="exchangeCampaigns" options={{ label: 'Exchange' }} {...exchangeCampaigns} recordRepresentation="name" />
        ) : null}
        {isAdmin(permissions) ? <Resource name="accounts" {...accounts} recordRepresentation="name" /> : null}
        <CustomRoutes>
          <Route path="/me" element={<MyAccount />} />
          {hasRole(permissions, 'advertiser') || hasRole(permissions, 'publisher') ? <Route path="/reports" element={<ReportsPage />} /> : null}
          {hasRole(permissions, 'advertiser') || hasRole(permissions, 'publisher') ? <Route path="/test-delivery" element={<DeliveryTestPage />} /> : null}
          {hasRole(permissions, 'publisher') ? <Route path="/profiles/import" element={<ProfileImport />} /> : null}
          {isAdmin(permissions) ? <Route path="/queues" element={<QueuesPage />} /> : null}
          {isAdmin(permissions) ? <Route path="/reviews" element={<ReviewQueuePage />} /> : null}
        </CustomRoutes>
      </>
    )}
  </Admin>
);
