import type { Api } from '../api';
import { OPENAPI, readList, resourceProvider, type PageReader } from './resource';
import type { CampaignForecast, FormData, Schemas, SeriesPoint, SeriesRange, StatusAction, VerificationHealth } from './types';

/** The fields of the campaign shape the create/update endpoints take; stats and ids are left out. */
export function campaignBody(data: FormData): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const key of ['name', 'targeting', 'budget', 'bidding', 'ad', 'optimizationEvent', 'category'] as const) {
    if (data[key] !== undefined) body[key] = data[key];
  }
  const url = typeof data.verificationUrl === 'string' ? data.verificationUrl.trim() : data.verificationUrl;
  if (url) body.verificationUrl = url;
  const frequencyCap = frequencyCapBody(data.frequencyCap);
  if (frequencyCap) body.frequencyCap = frequencyCap;
  return body;
}

/** The frequency cap's filled-in fields; undefined when both are empty (no cap). A half-filled one goes as it is: the API names the missing field. */
export function frequencyCapBody(value: unknown): Record<string, unknown> | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const cap: Record<string, unknown> = {};
  for (const key of ['impressions', 'hours'] as const) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== undefined && field !== null && field !== '') cap[key] = field;
  }
  return Object.keys(cap).length > 0 ? cap : undefined;
}

/** `campaigns`: an advertiser's campaigns (an admin's: everyone's) through the integrators' routes. */
export function campaignsProvider(api: Api) {
  const pages: PageReader = async (current, pageSize) => {
    const data = await api<Schemas['CampaignListDto']>(`${OPENAPI}/ad/campaign/list`, { query: { current, pageSize } });
    return { items: data.campaigns, total: data.total };
  };
  const getOne = async (id: string) => {
    const data = await api<Schemas['CampaignResponseDto']>(`${OPENAPI}/ad/campaign/detail`, { query: { campaignId: id } });
    return { ...data, id: data.campaignId };
  };
  return resourceProvider('campaigns', {
    getList: (params) => readList(pages, params),
    getOne,
    create: async (data) => {
      const { campaignId } = await api<Schemas['CampaignCreatedDto']>(`${OPENAPI}/ad/campaign/create`, { body: campaignBody(data) });
      return getOne(campaignId);
    },
    update: async (id, data) => {
      const body: Record<string, unknown> = { campaignId: id, ...campaignBody(data) };
      // An emptied verification URL removes it.
      if (!body.verificationUrl && 'verificationUrl' in data) body.verificationUrl = null;
      // Emptied cap fields remove the cap.
      if (!body.frequencyCap && 'frequencyCap' in data) body.frequencyCap = null;
      const answer = await api<Schemas['CampaignResponseDto']>(`${OPENAPI}/ad/campaign/update`, { body });
      return { ...answer, id: answer.campaignId };
    },
  });
}

/** The campaign screens' calls beyond CRUD: status buttons, charts, verification health, the forecast. */
export function campaignCalls(api: Api) {
  return {
    setCampaignStatus: (campaignId: string, status: StatusAction) => api(`${OPENAPI}/ad/campaign/status`, { body: { campaignId, status } }),
    campaignSeries: (campaignId: string, range: SeriesRange = {}) =>
      api<{ series: SeriesPoint[] }>(`${OPENAPI}/ad/campaign/stats`, { query: { campaignId, ...range } }).then((data) => data.series),
    verificationHealth: (campaignId: string, limit = 20) => api<VerificationHealth>(`${OPENAPI}/ad/campaign/verification`, { query: { campaignId, limit } }),
    /** A create body (and `campaignId` for an edit of one's own campaign) forecast over a day; nothing is stored. */
    forecastCampaign: (body: Record<string, unknown>) => api<CampaignForecast>(`${OPENAPI}/ad/campaign/forecast`, { body }),
  };
}
