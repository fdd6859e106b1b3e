import type { CreateResult, DataProvider, GetListParams, GetListResult, GetManyReferenceParams, Identifier, RaRecord, UpdateResult } from 'react-admin';
import type { FormData } from './types';

export const OPENAPI = '/api/v2/openapi';
export const ADMIN = '/api/v2/admin';
/** The API's largest page: used when the panel has to filter or sort on its side. */
const MAX_PAGE_SIZE = 100;
/** When filtering on the panel's side, at most this many items are read (50 pages of 100). */
const MAX_FILTERED_ITEMS = 5000;

export interface PagedList {
  items: RaRecord[];
  total: number;
}
/** Reads one page of a list endpoint (1-based `current`, as the API counts). */
export type PageReader = (current: number, pageSize: number) => Promise<PagedList>;

/** Filters the panel applies itself: the list endpoints page but do not filter. */
export function matchesFilter(record: RaRecord, filter: Record<string, unknown>): boolean {
  return Object.entries(filter).every(([name, wanted]) => {
    if (wanted === undefined || wanted === null || wanted === '') return true;
    if (name === 'q') {
      const needle = String(wanted).toLowerCase();
      return ['name', 'id', 'userId'].some((field) =>
        String(record[field] ?? '')
          .toLowerCase()
          .includes(needle),
      );
    }
    const value = record[name];
    if (Array.isArray(wanted)) return wanted.length === 0 || wanted.includes(value);
    if (Array.isArray(value)) return value.includes(wanted);
    return value === wanted;
  });
}

function compare(left: unknown, right: unknown): number {
  if (typeof left === 'number' && typeof right === 'number') return left - right;
  return String(left ?? '').localeCompare(String(right ?? ''));
}

const hasFilter = (filter: Record<string, unknown> | undefined) =>
  Object.values(filter ?? {}).some((value) => value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0));

/**
 * Lists are read page by page from the API (newest first, its own order). A filter, or a sort other than
 * the API's, makes the panel read every page (up to MAX_FILTERED_ITEMS) and filter, sort and page itself.
 */
export async function readList(readPage: PageReader, params: Partial<GetListParams>, defaultSortField = 'createdAt'): Promise<GetListResult> {
  const page = params.pagination?.page ?? 1;
  const perPage = params.pagination?.perPage ?? 20;
  const sort = params.sort;
  const apiOrder = !sort?.field || (sort.field === defaultSortField && sort.order === 'DESC') || sort.field === 'id';
  if (!hasFilter(params.filter) && apiOrder && perPage <= MAX_PAGE_SIZE) {
    const { items, total } = await readPage(page, perPage);
    return { data: items, total };
  }
  const all: RaRecord[] = [];
  for (let current = 1; all.length < MAX_FILTERED_ITEMS; current++) {
    const { items, total } = await readPage(current, MAX_PAGE_SIZE);
    all.push(...items);
    if (items.length < MAX_PAGE_SIZE || all.length >= total) break;
  }
  let rows = all.filter((record) => matchesFilter(record, params.filter ?? {}));
  if (sort?.field && !apiOrder) {
    const direction = sort.order === 'ASC' ? 1 : -1;
    rows = [...rows].sort((left, right) => direction * compare(left[sort.field], right[sort.field]));
  }
  return { data: rows.slice((page - 1) * perPage, page * perPage), total: rows.length };
}

/** What one resource can do through the API; each resource module gives the calls its routes allow. */
export interface ResourceCalls {
  getList?: (params: GetListParams) => Promise<GetListResult>;
  getOne?: (id: string) => Promise<RaRecord>;
  create?: (data: FormData) => Promise<RaRecord>;
  update?: (id: string, data: FormData) => Promise<RaRecord>;
}

const refuse = (what: string, resource: string) => Promise.reject(new Error(`${what} is not available for ${resource}`));

/**
 * A resource's data provider for `combineDataProviders`: its calls, `getMany` as one `getOne` per id and
 * `getManyReference` as a filtered `getList`; whatever it lacks (and every delete: the API deletes nothing) is
 * refused with a message naming the method and the resource.
 */
export function resourceProvider(resource: string, calls: ResourceCalls): DataProvider {
  const { getList, getOne, create, update } = calls;
  const provider = {
    getList: (_resource: string, params: GetListParams) => (getList ? getList(params) : refuse('getList', resource)),
    getOne: async (_resource: string, params: { id: Identifier }) => ({ data: getOne ? await getOne(String(params.id)) : await refuse('getOne', resource) }),
    getMany: async (_resource: string, params: { ids: Identifier[] }) => ({
      data: await Promise.all(params.ids.map((id) => (getOne ? getOne(String(id)) : refuse('getOne', resource)))),
    }),
    getManyReference: (_resource: string, params: GetManyReferenceParams) =>
      getList ? getList({ ...params, filter: { ...params.filter, [params.target]: params.id } }) : refuse('getList', resource),
    create: async (_resource: string, params: { data: FormData }): Promise<CreateResult> => ({
      data: create ? await create(params.data) : await refuse('create', resource),
    }),
    update: async (_resource: string, params: { id: Identifier; data: FormData }): Promise<UpdateResult> => ({
      data: update ? await update(String(params.id), params.data) : await refuse('update', resource),
    }),
    updateMany: () => refuse('updateMany', resource),
    delete: () => refuse('delete', resource),
    deleteMany: () => refuse('deleteMany', resource),
  };
  // react-admin types each method as generic over the record type; these answer the API's records as they are
  return provider as unknown as DataProvider;
}
