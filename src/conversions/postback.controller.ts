import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../accounts/auth.decorators';
import { AccountsService } from '../accounts/accounts.service';
import { ApiErrors } from '../common/envelope';
import { RateLimitedError, UnauthorizedError } from '../common/errors';
import { WriteDeadlineRoute } from '../common/write-deadline';
import { conversionMessage } from './conversion-messages';
import { CONVERSIONS_CONFIG, ConversionsConfig } from './conversions.config';
import { ConversionsService } from './conversions.service';
import { ConversionResultDto } from './dto/conversion.dto';
import { PostbackQueryDto } from './dto/postback.dto';

/**
 * Server-to-server postbacks (docs/CONTRACT.md §20): an attribution tool reports a conversion by the click id it got
 * in the landing URL, naming the advertiser by its postback token (a URL is logged everywhere: never an API key).
 */
@ApiTags('events')
@Controller('api/v2/openapi')
export class PostbackController {
  /** Postbacks per token in the current second (this process). */
  private window = { start: 0, counts: new Map<string, number>() };

  constructor(
    private readonly conversions: ConversionsService,
    private readonly accounts: AccountsService,
    @Inject(CONVERSIONS_CONFIG) private readonly config: ConversionsConfig,
  ) {}

  @Get('postback')
  @Public()
  @WriteDeadlineRoute()
  @ApiOperation({
    summary: 'Postback: report a conversion or custom event by click id, with your postback token (for attribution tools)',
    description:
      'The same rules and answer as `POST ad/event/report/conversion` with `eventData.clickId`: credited to that click if it is a ' +
      'counted click on your campaigns within `ATTRIBUTION_DAYS`; a repeated `transactionId` answers `duplicate`. An unknown or ' +
      'rotated token is 401; POSTBACK_RATE_LIMIT_PER_SECOND per token (429 above).',
  })
  @ApiOkResponse({ type: ConversionResultDto, description: 'Stored (attributed or not), or a duplicate' })
  @ApiErrors(400, 401, 429)
  async postback(@Query() query: PostbackQueryDto): Promise<ConversionResultDto> {
    this.admit(query.token);
    const advertiserId = await this.accounts.advertiserOfPostbackToken(query.token);
    if (advertiserId === null)
      throw new UnauthorizedError('token: unknown or rotated postback token', { errors: [{ field: 'token', message: 'unknown or rotated postback token' }] });
    const outcome = await this.conversions.report(
      { accountId: advertiserId },
      { clickId: query.clickId, transactionId: query.transactionId },
      query.event ?? 'conversion',
    );
    return { status: 'success', msg: conversionMessage(outcome) };
  }

  /** Counts the postback against its token's limit for this second: unknown tokens too, so guessing is slowed. */
  private admit(token: string): void {
    const now = Date.now();
    const start = now - (now % 1000);
    if (start !== this.window.start) this.window = { start, counts: new Map() };
    const used = (this.window.counts.get(token) ?? 0) + 1;
    this.window.counts.set(token, used);
    if (used > this.config.postbackRateLimitPerSecond) throw new RateLimitedError(1);
  }
}
