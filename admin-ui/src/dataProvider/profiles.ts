import type { Api } from '../api';
import { OPENAPI } from './resource';
import type { ProfileBatchStatus, Schemas } from './types';

/** The profile import page's calls (profiles are no react-admin resource: the panel uploads, it does not list them). */
export function profileCalls(api: Api) {
  return {
    /**
     * Sends a CSV file as is (the API streams it) and answers `{batchIds, total}`: one batch per 5000 rows. The profiles
     * are the caller's own; an admin names the publisher they are for (`publisherId`).
     */
    importProfilesCsv: (file: Blob, publisherId?: string) =>
      api<Schemas['ProfileCsvImportedDto']>(`${OPENAPI}/user/profile/batch/csv`, {
        query: { publisherId },
        raw: { body: file, contentType: 'text/csv' },
      }),
    profileBatchStatus: (batchId: string) => api<ProfileBatchStatus>(`${OPENAPI}/user/profile/batch/status`, { query: { batchId } }),
  };
}
