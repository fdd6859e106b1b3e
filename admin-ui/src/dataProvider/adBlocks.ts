import type { Api } from '../api';
import { OPENAPI, readList, resourceProvider, type PageReader } from './resource';
import type { FormData, RewardDelivery, RewardTestResult, Schemas, SeriesPoint, SeriesRange } from './types';

/**
 * The fields ad/block/create and ad/block/update take (update also needs the block id). An emptied floor is left out
 * (create) or removed with null (update); the blocked domains come from a text of names separated by commas, spaces
 * or lines.
 */
export function adBlockBody(data: FormData, forUpdate = false): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (data.name !== undefined) body.name = data.name;
  if (typeof data.requireSignedViewer === 'boolean') body.requireSignedViewer = data.requireSignedViewer;
  for (const key of ['floorCpm', 'floorCpc'] as const) {
    const value = data[key];
    if (value !== undefined && value !== null && value !== '') body[key] = value;
    else if (forUpdate && key in data) body[key] = null;
  }
  if (Array.isArray(data.blockedCategories)) body.blockedCategories = data.blockedCategories;
  if (data.blockedDomains !== undefined) body.blockedDomains = parseDomains(data.blockedDomains);
  // rewarded-ad settings (docs/REWARDED_ADS.md): an emptied URL field removes the URL
  if (typeof data.format === 'string' && data.format !== '') body.format = data.format;
  if (typeof data.rewardUrl === 'string') body.rewardUrl = data.rewardUrl.trim() === '' ? null : data.rewardUrl.trim();
  else if (data.rewardUrl === null && 'rewardUrl' in data) body.rewardUrl = null;
  for (const field of ['minViewMs', 'dailyRewardCap'] as const) if (typeof data[field] === 'number') body[field] = data[field];
  return body;
}

/** Host names from a text (commas, spaces or lines between them) or a list; empty entries dropped. */
export function parseDomains(value: unknown): unknown {
  if (Array.isArray(value)) return value;
  if (value === null || value === '') return [];
  if (typeof value !== 'string') return value;
  return value.split(/[\s,]+/).filter(Boolean);
}

/** `adBlocks`: a publisher's ad blocks, their react-admin id the block id. */
export function adBlocksProvider(api: Api) {
  const pages: PageReader = async (current, pageSize) => {
    const data = await api<Schemas['AdBlockListDto']>(`${OPENAPI}/ad/block/list`, { query: { current, pageSize } });
    return { items: data.adBlocks.map((block) => ({ ...block, id: block.adBlockId })), total: data.total };
  };
  const getOne = async (id: string) => {
    const data = await api<Schemas['AdBlockResponseDto']>(`${OPENAPI}/ad/block/detail`, { query: { adBlockId: id } });
    return { ...data, id: data.adBlockId };
  };
  return resourceProvider('adBlocks', {
    getList: (params) => readList(pages, params),
    getOne,
    create: async (data) => {
      const { adBlockId } = await api<Schemas['AdBlockCreatedDto']>(`${OPENAPI}/ad/block/create`, { body: adBlockBody(data) });
      return getOne(adBlockId);
    },
    update: async (id, data) => {
      const answer = await api<Schemas['AdBlockResponseDto']>(`${OPENAPI}/ad/block/update`, { body: { adBlockId: id, ...adBlockBody(data, true) } });
      return { ...answer, id: answer.adBlockId };
    },
  });
}

/** The block screens' calls beyond CRUD: its chart and its reward callbacks. */
export function adBlockCalls(api: Api) {
  return {
    adBlockSeries: (adBlockId: string, range: SeriesRange = {}) =>
      api<{ series: SeriesPoint[] }>(`${OPENAPI}/ad/block/stats`, { query: { adBlockId, ...range } }).then((data) => data.series),
    rewardLog: (adBlockId: string, pageSize = 50) =>
      api<{ rewards: RewardDelivery[]; total: number }>(`${OPENAPI}/ad/block/rewards`, { query: { adBlockId, pageSize } }),
    replayReward: (eventId: string) => api<RewardDelivery>(`${OPENAPI}/ad/block/rewards/replay`, { body: { eventId } }),
    testReward: (adBlockId: string) => api<RewardTestResult>(`${OPENAPI}/ad/block/rewards/test`, { body: { adBlockId } }),
  };
}
