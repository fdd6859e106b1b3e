import type { Api } from '../api';
import { OPENAPI } from './resource';
import type { ReportAnswer, ReportQuery } from './types';

export function reportCalls(api: Api) {
  return {
    /** A report (GET /report, JSON): rows grouped by up to 3 dimensions, and their totals. */
    report: (query: ReportQuery) => api<ReportAnswer>(`${OPENAPI}/report`, { query: { ...query } }),
  };
}
