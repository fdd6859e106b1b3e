import { Controller, Get, Query, StreamableFile } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { Readable } from 'node:stream';
import { CurrentPrincipal, Roles } from '../accounts/auth.decorators';
import type { Principal } from '../accounts/principal';
import { HandlerDeadline } from '../common/edge/route-config';
import { ApiEnvelope, ApiErrors, Envelope, ok } from '../common/envelope';
import { ReportDto, ReportQueryDto } from './dto/report.dto';
import { ReportsService } from './reports.service';

@ApiTags('reports')
@ApiSecurity('x-api-key')
@Controller('api/v2/openapi')
export class ReportsController {
  constructor(private readonly reports: ReportsService) {}

  @Get('report')
  @Roles('advertiser', 'publisher')
  // a year of hourly rows as CSV may stream for longer than a handler's deadline
  @HandlerDeadline('request')
  @ApiOperation({
    summary: 'Report: figures grouped by up to 3 of hour, day, campaign, adBlock, country, platform over a window, as JSON or a CSV download',
    description:
      'Advertisers see their campaigns and cost, publishers their blocks and earnings, admins everything. `format=csv` answers `text/csv` ' +
      '(header row, `Content-Disposition: attachment`), streamed. The totals equal the sums of the campaign or block series over the window.',
  })
  @ApiProduces('application/json', 'text/csv')
  @ApiEnvelope(ReportDto)
  @ApiErrors(400, 401, 403, 404)
  async report(@CurrentPrincipal() principal: Principal, @Query() query: ReportQueryDto): Promise<Envelope<ReportDto> | StreamableFile> {
    if (query.format !== 'csv') return ok(await this.reports.json(principal, query));
    const report = await this.reports.prepare(principal, query);
    const name = `report-${new Date(report.from).toISOString().slice(0, 10)}-${new Date(report.to).toISOString().slice(0, 10)}.csv`;
    return new StreamableFile(Readable.from(this.reports.csvLines(report)), {
      type: 'text/csv; charset=utf-8',
      disposition: `attachment; filename="${name}"`,
    });
  }
}
