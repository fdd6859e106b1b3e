import { Injectable } from '@nestjs/common';
import { AdBlocksService } from '../ad-blocks/ad-blocks.service';
import { hasRole, isAdmin, type Principal } from '../accounts/principal';
import { CampaignsService } from '../campaigns/campaigns.service';
import { Clock, DAY_MS, hourStart } from '../common/clock';
import { ValidationError } from '../common/errors';
import { fromMicros } from '../common/money';
import type { ReportCounter, ReportDimension, ReportRawRow, ReportRowsQuery } from '../stats/report-rows.repository';
import { StatsService } from '../stats/stats.service';
import { MAX_REPORT_DIMENSIONS, REPORT_DIMENSIONS, ReportDto, ReportFiguresDto, ReportQueryDto, ReportRowDto } from './dto/report.dto';
import { knownTimeZone, offsetsOver } from './time-zone';

/** Whose figures a report shows: an advertiser's campaigns and cost, a publisher's blocks and earnings, or all. */
export type ReportView = 'advertiser' | 'publisher' | 'admin';

/** The longest window a report covers (a year and a margin; the rollup keeps REPORT_RETENTION_DAYS). */
export const MAX_REPORT_DAYS = 400;
/** Rows a JSON report answers at most; more is a CSV (streamed) or fewer dimensions. */
export const MAX_JSON_ROWS = 10_000;
const DEFAULT_SPAN_MS = 7 * DAY_MS;

/** The key a dimension has in a row (and a CSV header). */
const ROW_KEY: Record<ReportDimension, keyof ReportRowDto> = {
  hour: 'hour',
  day: 'day',
  campaign: 'campaignId',
  adBlock: 'adBlockId',
  country: 'country',
  platform: 'platform',
};

const CUSTOM_EVENTS: [keyof ReportFiguresDto, ReportCounter][] = [
  ['onboard', 'onboardEvents'],
  ['register', 'registerEvents'],
  ['play', 'playEvents'],
  ['payment', 'paymentEvents'],
  ['withdraw', 'withdrawEvents'],
];

/** A checked report request: what to read, and how its rows are shaped. */
export interface PreparedReport {
  view: ReportView;
  timeZone: string;
  from: number;
  to: number;
  dimensions: ReportDimension[];
  /** The columns of a row, in CSV order. */
  columns: string[];
  query: ReportRowsQuery;
}

/**
 * Reports (docs/CONTRACT.md §19): the report rollup's rows grouped by up to three dimensions over a window, for the
 * caller's campaigns (advertisers), blocks (publishers) or everything (admins); JSON, or CSV streamed row by row.
 */
@Injectable()
export class ReportsService {
  constructor(
    private readonly stats: StatsService,
    private readonly campaigns: CampaignsService,
    private readonly adBlocks: AdBlocksService,
    private readonly clock: Clock,
  ) {}

  /** Checks the request and resolves the caller's scope; every 4xx comes from here, before any row is read. */
  async prepare(principal: Principal, request: ReportQueryDto): Promise<PreparedReport> {
    const dimensions = parseGroupBy(request.groupBy);
    const timeZone = request.timeZone === undefined ? 'UTC' : knownTimeZone(request.timeZone);
    if (timeZone === null) throw ValidationError.of('timeZone', 'must be an IANA time zone name such as Europe/Berlin or UTC');
    const to = request.to ?? this.clock.now();
    const from = request.from ?? to - DEFAULT_SPAN_MS;
    if (from >= to) throw ValidationError.of('from', 'must be before to');
    if (to - from > MAX_REPORT_DAYS * DAY_MS) throw ValidationError.of('to', `must be at most ${MAX_REPORT_DAYS} days after from`);
    const view = viewOf(principal, request.as);
    const firstHour = hourStart(from);

    let campaignIds: string[] | null = null;
    let adBlockIds: string[] | null = null;
    if (view === 'advertiser' || (view === 'admin' && request.campaignId !== undefined)) {
      if (request.campaignId !== undefined) {
        // another advertiser's campaign answers like an unknown one
        await this.campaigns.visibleCampaign(principal, request.campaignId);
        campaignIds = [request.campaignId];
      } else {
        campaignIds = await this.campaigns.ownCampaignIds(principal);
      }
    } else if (request.campaignId !== undefined) {
      // a publisher may narrow its own blocks' rows to one campaign: rows of no block of its own never show
      campaignIds = [request.campaignId];
    }
    if (view === 'publisher' || (view === 'admin' && request.adBlockId !== undefined)) {
      if (request.adBlockId !== undefined) {
        await this.adBlocks.assertUsable(principal, request.adBlockId);
        adBlockIds = [request.adBlockId];
      } else {
        adBlockIds = await this.adBlocks.ownAdBlockIds(principal);
      }
    } else if (request.adBlockId !== undefined) {
      adBlockIds = [request.adBlockId];
    }

    return {
      view,
      timeZone,
      from: firstHour,
      to,
      dimensions,
      columns: columnsOf(dimensions, view),
      query: { dimensions, firstHour, toExclusive: to, offsets: offsetsOver(timeZone, firstHour, to), campaignIds, adBlockIds },
    };
  }

  /** The report as JSON: at most MAX_JSON_ROWS rows (more: 400 naming `format`), and their totals. */
  async json(principal: Principal, request: ReportQueryDto): Promise<ReportDto> {
    const report = await this.prepare(principal, request);
    const rows: ReportRowDto[] = [];
    const totals = new Totals();
    for await (const raw of this.stats.reportRows(report.query)) {
      if (rows.length === MAX_JSON_ROWS) {
        throw ValidationError.of('format', `json answers at most ${MAX_JSON_ROWS} rows: ask for format=csv, a shorter window or fewer dimensions`);
      }
      totals.add(raw);
      rows.push(rowOf(raw, report));
    }
    return { timeZone: report.timeZone, from: report.from, to: report.to, groupBy: report.dimensions, rows, totals: figuresOf(totals.sums, report.view) };
  }

  /** The report's CSV lines (header first), produced as the rows arrive from the database. */
  async *csvLines(report: PreparedReport): AsyncGenerator<string> {
    yield `${report.columns.join(',')}\r\n`;
    let batch = '';
    let inBatch = 0;
    for await (const raw of this.stats.reportRows(report.query)) {
      const row = rowOf(raw, report) as unknown as Record<string, string | number | undefined>;
      batch += `${report.columns.map((column) => csvField(row[column])).join(',')}\r\n`;
      // a chunk of lines per write, not one write per line
      if (++inBatch === 200) {
        yield batch;
        batch = '';
        inBatch = 0;
      }
    }
    if (batch.length > 0) yield batch;
  }
}

/** The dimensions of `groupBy`, checked: known, not repeated, at most MAX_REPORT_DIMENSIONS. */
export function parseGroupBy(groupBy: string | undefined): ReportDimension[] {
  if (groupBy === undefined || groupBy.trim() === '') return [];
  const names = groupBy.split(',').map((name) => name.trim());
  const dimensions: ReportDimension[] = [];
  for (const name of names) {
    if (!(REPORT_DIMENSIONS as readonly string[]).includes(name)) {
      throw ValidationError.of('groupBy', `has an unknown dimension "${name.slice(0, 40)}": use ${REPORT_DIMENSIONS.join(', ')}`);
    }
    if (dimensions.includes(name as ReportDimension)) throw ValidationError.of('groupBy', `names ${name} twice`);
    dimensions.push(name as ReportDimension);
  }
  if (dimensions.length > MAX_REPORT_DIMENSIONS) throw ValidationError.of('groupBy', `must name at most ${MAX_REPORT_DIMENSIONS} dimensions`);
  return dimensions;
}

function viewOf(principal: Principal, as: 'advertiser' | 'publisher' | undefined): ReportView {
  if (isAdmin(principal)) return 'admin';
  if (as !== undefined) {
    if (!hasRole(principal, as)) throw ValidationError.of('as', `must be a role of your account (${principal.roles.join(', ')})`);
    return as;
  }
  return hasRole(principal, 'advertiser') ? 'advertiser' : 'publisher';
}

function columnsOf(dimensions: ReportDimension[], view: ReportView): string[] {
  const columns: string[] = dimensions.map((dimension) => ROW_KEY[dimension]);
  columns.push('impressions', 'clicks', 'ctr', 'conversions', 'completions');
  if (view !== 'publisher') columns.push(...CUSTOM_EVENTS.map(([name]) => name));
  if (view !== 'publisher') columns.push('cost');
  if (view !== 'advertiser') columns.push('earnings');
  columns.push('unbilledClicks', 'invalidClicks', 'invalidImpressions', 'views');
  return columns;
}

class Totals {
  readonly sums = {} as Record<ReportCounter, number>;

  add(row: ReportRawRow): void {
    for (const [key, value] of Object.entries(row)) {
      if (typeof value !== 'number' || key in ROW_KEY) continue;
      this.sums[key as ReportCounter] = (this.sums[key as ReportCounter] ?? 0) + value;
    }
  }
}

function figuresOf(sums: Partial<Record<ReportCounter, number>>, view: ReportView): ReportFiguresDto {
  const count = (column: ReportCounter) => sums[column] ?? 0;
  const figures: ReportFiguresDto = {
    impressions: count('impressions'),
    clicks: count('clicks'),
    ctr: count('impressions') > 0 ? count('clicks') / count('impressions') : 0,
    conversions: count('conversions'),
    completions: count('completions'),
    unbilledClicks: count('unbilledClicks'),
    invalidClicks: count('invalidClicks'),
    invalidImpressions: count('invalidImpressions'),
    views: count('views'),
  };
  if (view !== 'publisher') for (const [name, column] of CUSTOM_EVENTS) (figures as unknown as Record<string, number>)[name] = count(column);
  if (view !== 'publisher') figures.cost = fromMicros(count('spendMicros'));
  if (view !== 'advertiser') figures.earnings = fromMicros(count('earningsMicros'));
  return figures;
}

function rowOf(raw: ReportRawRow, report: PreparedReport): ReportRowDto {
  const row: Partial<ReportRowDto> = {};
  for (const dimension of report.dimensions) {
    const value = raw[dimension];
    if (dimension === 'hour') row.hour = new Date(Number(value)).toISOString().slice(0, 16);
    else if (dimension === 'day') row.day = new Date(Number(value)).toISOString().slice(0, 10);
    else if (dimension === 'country' || dimension === 'platform') row[dimension] = value === '' ? 'unknown' : String(value);
    else row[ROW_KEY[dimension] as 'campaignId' | 'adBlockId'] = String(value);
  }
  return Object.assign(row, figuresOf(raw, report.view)) as ReportRowDto;
}

/** A CSV field (RFC 4180): quoted when it holds a comma, quote or line break; a leading formula character defused. */
function csvField(value: string | number | undefined): string {
  if (value === undefined) return '';
  if (typeof value === 'number') return String(value);
  let text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  if (/[",\r\n]/.test(text)) text = `"${text.replace(/"/g, '""')}"`;
  return text;
}
