import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Roles } from '../accounts/auth.decorators';
import type { Principal } from '../accounts/principal';
import { ApiEnvelope, ApiErrors, Envelope, ok } from '../common/envelope';
import { PagingQueryDto } from '../common/paging.dto';
import { AdBlocksService } from './ad-blocks.service';
import { AdBlockCreateDto, AdBlockCreatedDto, AdBlockIdDto, AdBlockListDto, AdBlockResponseDto, AdBlockUpdateDto } from './dto/ad-block.dto';

@ApiTags('ad blocks')
@ApiSecurity('x-api-key')
@Roles('publisher')
@Controller('api/v2/openapi/ad/block')
export class AdBlocksController {
  constructor(private readonly adBlocks: AdBlocksService) {}

  @Post('create')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create an ad block (a publisher ad spot); its id goes into matching/ad',
    description: 'With `requireSignedViewer: true` its ad requests need a signed viewer header (see ad/block/update).',
  })
  @ApiEnvelope(AdBlockCreatedDto)
  @ApiErrors(400, 401, 403)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: AdBlockCreateDto): Promise<Envelope<AdBlockCreatedDto>> {
    return ok({ adBlockId: await this.adBlocks.create(principal, body.name, body.requireSignedViewer, body) });
  }

  @Post('update')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Change an ad block: name, signed viewers',
    description:
      'The fields given change, the others stay; answers the detail. `requireSignedViewer: true` makes matching/ad on the ' +
      'block need the header `x-adnet-viewer: <openId>.<expiresAtMs>.<signature>`, where the signature is the lower-case hex ' +
      "HMAC-SHA256 of `<openId>.<expiresAtMs>` keyed with your account's webhook secret (GET account/me), made by your " +
      'server for the user it serves; `expiresAtMs` must be in the future and at most 24 hours ahead. A request without it, ' +
      'expired, signed for another openId or with a wrong signature is a 401 naming the header. Clicks need no header: they ' +
      'count only for impressions served under a valid one. See docs/SIGNED_VIEWERS.md for a Node snippet.',
  })
  @ApiEnvelope(AdBlockResponseDto)
  @ApiErrors(400, 401, 403, 404)
  async update(@CurrentPrincipal() principal: Principal, @Body() body: AdBlockUpdateDto): Promise<Envelope<AdBlockResponseDto>> {
    return ok(await this.adBlocks.update(principal, body));
  }

  @Get('list')
  @ApiOperation({ summary: "List the publisher's ad blocks with their stats, newest first" })
  @ApiEnvelope(AdBlockListDto)
  @ApiErrors(400, 401, 403)
  async list(@CurrentPrincipal() principal: Principal, @Query() query: PagingQueryDto): Promise<Envelope<AdBlockListDto>> {
    const [adBlocks, total] = await this.adBlocks.list(principal, query.skip, query.pageSize);
    return ok({ adBlocks, total, current: query.current, pageSize: query.pageSize, success: true });
  }

  @Get('detail')
  @ApiOperation({ summary: 'One ad block with its stats and earnings' })
  @ApiEnvelope(AdBlockResponseDto)
  @ApiErrors(400, 401, 403, 404)
  async detail(@CurrentPrincipal() principal: Principal, @Query() query: AdBlockIdDto): Promise<Envelope<AdBlockResponseDto>> {
    return ok(await this.adBlocks.detail(principal, query.adBlockId));
  }
}
