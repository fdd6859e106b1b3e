import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Roles } from '../accounts/auth.decorators';
import type { Principal } from '../accounts/principal';
import { ApiEnvelope, ApiErrors, Envelope, ok } from '../common/envelope';
import { VerificationHealthDto, VerificationHealthQueryDto } from './dto/verification.dto';
import { VerificationService } from './verification.service';

@ApiTags('verification')
@ApiSecurity('x-api-key')
@Roles('advertiser')
@Controller('api/v2/openapi/ad/campaign')
export class VerificationController {
  constructor(private readonly verification: VerificationService) {}

  @Get('verification')
  @ApiOperation({
    summary: "Verification health of a campaign: its clicks by outcome and the recent calls to the advertiser's endpoint",
    description: 'The owner or an admin; another advertiser gets the 404 of an unknown campaign.',
  })
  @ApiEnvelope(VerificationHealthDto)
  @ApiErrors(400, 401, 403, 404)
  async health(@CurrentPrincipal() principal: Principal, @Query() query: VerificationHealthQueryDto): Promise<Envelope<VerificationHealthDto>> {
    return ok(await this.verification.health(principal, query.campaignId, query.limit ?? 50));
  }
}
