import { Controller, Get, Query } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, PublishableKeyAllowed, Roles } from '../accounts/auth.decorators';
import type { Principal } from '../accounts/principal';
import { FastLane } from '../common/edge/fast-lane';
import { HandlerDeadline } from '../common/edge/route-config';
import { ApiEnvelope, ApiErrors, Envelope, ok } from '../common/envelope';
import { Facts, type RequestFacts } from '../common/request-facts';
import { AdFetchQueryDto, ServedAdsDto } from './dto/serving.dto';
import { ServingFastLane } from './serving.fast-lane';
import { ServingService } from './serving.service';

@ApiTags('serving')
@ApiSecurity('x-api-key')
@Roles('publisher')
@Controller('api/v2/openapi/matching')
export class ServingController {
  constructor(private readonly serving: ServingService) {}

  @Get('ad')
  @PublishableKeyAllowed()
  @FastLane(ServingFastLane)
  @HandlerDeadline('none')
  @ApiOperation({
    summary: '5. Fetch ads for an ad block',
    description:
      "Call it from the end user's frontend: the region comes from the client IP (behind TRUST_PROXY hops), the " +
      'language from `Accept-Language`, the platform from `User-Agent`, the flags from uploaded profiles. Every ad ' +
      'returned is one impression (CPM campaigns are billed for it). Ads are ranked by expected revenue per ' +
      'impression, one per campaign. In production an ad the user clicked is not served to them for 10 minutes.\n\n' +
      'On an ad block with `requireSignedViewer` the request needs the header `x-adnet-viewer` (made by your server, see ' +
      'ad/block/update and docs/SIGNED_VIEWERS.md); without a good one it is a 401 and nothing is served.',
  })
  @ApiHeader({ name: 'debug', required: false, description: '`true` or `1`: well-formed test ads, never counted or billed' })
  @ApiHeader({
    name: 'x-adnet-viewer',
    required: false,
    description:
      'Only on ad blocks with requireSignedViewer: `<openId>.<expiresAtMs>.<hex HMAC-SHA256(webhookSecret, "<openId>.<expiresAtMs>")>`, ' +
      "openId equal to the query's, expiresAtMs in the future and at most 24 h ahead",
  })
  @ApiEnvelope(ServedAdsDto)
  @ApiErrors(400, 401, 403, 404)
  async fetch(@CurrentPrincipal() principal: Principal, @Query() query: AdFetchQueryDto, @Facts() facts: RequestFacts): Promise<Envelope<ServedAdsDto>> {
    return ok(await this.serving.fetchAds(principal, query, facts));
  }
}
