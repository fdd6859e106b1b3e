import type { Api } from '../api';
import { OPENAPI, readList, resourceProvider, type PageReader } from './resource';
import type { FormData, Schemas, SeriesPoint, SeriesRange, StatusAction } from './types';

/** The fields an exchange campaign's create/update take; an emptied image is left out (create) or removed (update). */
export function exchangeCampaignBody(data: FormData, forUpdate = false): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const key of ['name', 'icon', 'text', 'destination', 'targeting'] as const) {
    if (data[key] !== undefined) body[key] = data[key];
  }
  const image = typeof data.image === 'string' ? data.image.trim() : data.image;
  if (image) body.image = image;
  else if (forUpdate && 'image' in data) body.image = null;
  return body;
}

/** `exchangeCampaigns`: a partner's campaigns on the click exchange. */
export function exchangeCampaignsProvider(api: Api) {
  const pages: PageReader = async (current, pageSize) => {
    const data = await api<Schemas['ExchangeCampaignListDto']>(`${OPENAPI}/exchange/campaign/list`, { query: { current, pageSize } });
    return { items: data.exchangeCampaigns, total: data.total };
  };
  const getOne = async (id: string) => {
    const data = await api<Schemas['ExchangeCampaignResponseDto']>(`${OPENAPI}/exchange/campaign/detail`, { query: { exchangeCampaignId: id } });
    return { ...data, id: data.exchangeCampaignId };
  };
  return resourceProvider('exchangeCampaigns', {
    getList: (params) => readList(pages, params),
    getOne,
    create: async (data) => {
      const { exchangeCampaignId } = await api<Schemas['ExchangeCampaignCreatedDto']>(`${OPENAPI}/exchange/campaign/create`, {
        body: exchangeCampaignBody(data),
      });
      return getOne(exchangeCampaignId);
    },
    update: async (id, data) => {
      const body = { exchangeCampaignId: id, ...exchangeCampaignBody(data, true) };
      const answer = await api<Schemas['ExchangeCampaignResponseDto']>(`${OPENAPI}/exchange/campaign/update`, { body });
      return { ...answer, id: answer.exchangeCampaignId };
    },
  });
}

/** The exchange campaign screens' calls beyond CRUD: status buttons and the chart. */
export function exchangeCampaignCalls(api: Api) {
  return {
    setExchangeCampaignStatus: (exchangeCampaignId: string, status: StatusAction) =>
      api(`${OPENAPI}/exchange/campaign/status`, { body: { exchangeCampaignId, status } }),
    exchangeCampaignSeries: (exchangeCampaignId: string, range: SeriesRange = {}) =>
      api<{ series: SeriesPoint[] }>(`${OPENAPI}/exchange/campaign/stats`, { query: { exchangeCampaignId, ...range } }).then((data) => data.series),
  };
}
