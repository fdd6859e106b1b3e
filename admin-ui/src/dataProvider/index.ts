/**
 * react-admin's data provider over the same endpoints integrators use, plus the admin API: one module per resource
 * (its CRUD calls, and the calls its screens make beyond CRUD), joined with react-admin's `combineDataProviders`.
 */
import { combineDataProviders, type DataProvider } from 'react-admin';
import { api as defaultApi, type Api } from '../api';
import { accountsProvider, ownAccountCalls } from './accounts';
import { adBlockCalls, adBlocksProvider } from './adBlocks';
import { campaignCalls, campaignsProvider } from './campaigns';
import { exchangeCampaignCalls, exchangeCampaignsProvider } from './exchangeCampaigns';
import { keyCalls, keysProvider } from './keys';
import { profileCalls } from './profiles';
import { reportCalls } from './reports';
import { resourceProvider } from './resource';

export { adBlockBody, parseDomains } from './adBlocks';
export { campaignBody, frequencyCapBody } from './campaigns';
export { exchangeCampaignBody } from './exchangeCampaigns';
export { keyBody, parseOrigins, servingSnippet } from './keys';
export { matchesFilter } from './resource';
export type * from './types';

/** The calls beyond CRUD that the panel's buttons, charts and pages make, by the resource they belong to. */
function screenCalls(api: Api) {
  return {
    ...ownAccountCalls(api),
    ...campaignCalls(api),
    ...adBlockCalls(api),
    ...exchangeCampaignCalls(api),
    ...keyCalls(api),
    ...profileCalls(api),
    ...reportCalls(api),
  };
}

export type AdnetDataProvider = DataProvider & ReturnType<typeof screenCalls>;

export function createDataProvider(api: Api = defaultApi): AdnetDataProvider {
  const resources = new Map<string, DataProvider>([
    ['campaigns', campaignsProvider(api)],
    ['adBlocks', adBlocksProvider(api)],
    ['accounts', accountsProvider(api)],
    ['exchangeCampaigns', exchangeCampaignsProvider(api)],
    ['keys', keysProvider(api)],
  ]);
  // A resource the API does not have is refused method by method, with its name (resourceProvider with no calls).
  const crud = combineDataProviders((resource) => resources.get(resource) ?? resourceProvider(resource, {}));
  // combineDataProviders answers a proxy that routes every property by resource: the screens' own calls (which take
  // no resource) sit beside its CRUD methods, taken from it one by one.
  const { getList, getOne, getMany, getManyReference, create, update, updateMany, delete: deleteOne, deleteMany } = crud;
  return { getList, getOne, getMany, getManyReference, create, update, updateMany, delete: deleteOne, deleteMany, ...screenCalls(api) };
}

export const dataProvider = createDataProvider();
