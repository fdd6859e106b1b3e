import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Roles } from '../accounts/auth.decorators';
import type { Principal } from '../accounts/principal';
import { ApiEnvelope, ApiErrors, Envelope, ok } from '../common/envelope';
import { Facts, type RequestFacts } from '../common/request-facts';
import { DeliveryDiagnosisService } from './delivery-diagnosis.service';
import { DeliveryDiagnosisDto, DeliveryDiagnosisQueryDto } from './dto/delivery-diagnosis.dto';

@ApiTags('serving')
@ApiSecurity('x-api-key')
@Roles('advertiser', 'publisher')
@Controller('api/v2/openapi/ad/delivery')
export class DeliveryDiagnosisController {
  constructor(private readonly diagnosis: DeliveryDiagnosisService) {}

  @Get('diagnose')
  @ApiOperation({
    summary: 'Why is my ad not showing? Delivery diagnosis of a campaign, an ad block, or both (beyond the interface)',
    description:
      'Runs the serving rules for the facts of one ad request and lists each check with `passed` and a plain-words `detail`: ' +
      'status, schedule, budgets (recorded and in the serving counters), the serving index, every targeting rule, the ' +
      "frequency cap and the exclusion after a click for `openId`, the block's floor, blocked categories and domains (without a " +
      'block: on how many of the ad blocks each keeps the campaign off), its signed viewers and hourly cap per user, the ' +
      'invalid-traffic verdict, and the rank versus the competition for `limit` ads. Facts not given come from this request, as ' +
      'matching/ad takes them (country from the client IP, language from the profile or `Accept-Language`, platform from ' +
      '`User-Agent`). It reads only: nothing is reserved, billed, counted or capped.\n\n' +
      'An advertiser names its own campaign (and may name its own ad blocks); a publisher names its own block and sees which ' +
      "campaigns it would serve, never another advertiser's settings; admins name any. Another account's id answers 404 like " +
      'an unknown one. A full key is needed (publishable keys get 403).',
  })
  @ApiEnvelope(DeliveryDiagnosisDto)
  @ApiErrors(400, 401, 403, 404)
  async diagnose(
    @CurrentPrincipal() principal: Principal,
    @Query() query: DeliveryDiagnosisQueryDto,
    @Facts() facts: RequestFacts,
  ): Promise<Envelope<DeliveryDiagnosisDto>> {
    return ok(await this.diagnosis.diagnose(principal, query, facts));
  }
}
