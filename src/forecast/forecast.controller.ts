import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Roles } from '../accounts/auth.decorators';
import type { Principal } from '../accounts/principal';
import { ApiEnvelope, ApiErrors, Envelope, ok } from '../common/envelope';
import { ForecastDto, ForecastRequestDto } from './dto/forecast.dto';
import { ForecastService } from './forecast.service';

@ApiTags('campaigns')
@ApiSecurity('x-api-key')
@Roles('advertiser')
@Controller('api/v2/openapi/ad/campaign')
export class ForecastController {
  constructor(private readonly forecasts: ForecastService) {}

  @Post('forecast')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Forecast a campaign before creating it: a day of requests, impressions, clicks and spend, and what limits it',
    description:
      'Takes the body of `ad/campaign/create` (checked the same way; nothing is stored) and replays the ad requests of the last ' +
      '7 days, kept as a sample (FORECAST_SAMPLE_RATE), through its targeting and ranking against the campaigns live now, ' +
      'scaled to 24 hours. With `campaignId` (one of yours) it forecasts an edit of that campaign, which then does not compete ' +
      'with itself. Answers aggregates only: nothing of another advertiser.',
  })
  @ApiEnvelope(ForecastDto)
  @ApiErrors(400, 401, 403)
  async forecast(@CurrentPrincipal() principal: Principal, @Body() body: ForecastRequestDto): Promise<Envelope<ForecastDto>> {
    return ok(await this.forecasts.forecast(principal, body));
  }
}
