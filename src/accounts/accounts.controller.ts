import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, Envelope, ok } from '../common/envelope';
import { PagingQueryDto } from '../common/paging.dto';
import { AccountsService, KeyOptions } from './accounts.service';
import { CurrentPrincipal, Roles } from './auth.decorators';
import {
  AccountCreateDto,
  AccountCreatedDto,
  AccountListDto,
  AccountMeDto,
  AccountResponseDto,
  AccountUpdateDto,
  KeyCreateDto,
  KeyCreatedDto,
  KeyListDto,
  KeyResponseDto,
  KeyRevokeDto,
  ResultDto,
} from './dto/account.dto';
import type { Principal } from './principal';

function keyOptions(body: KeyCreateDto): KeyOptions {
  return { scope: body.scope ?? 'full', label: body.label ?? '', allowedOrigins: body.allowedOrigins ?? null };
}

const SCOPES_DESCRIPTION =
  '`scope: serve` makes a publishable key, safe to embed in a frontend: it may only fetch ads and report clicks ' +
  "(matching/ad, ad/event/report, matching/exchange, exchange/event/report) for the account's own blocks and exchange " +
  'campaigns, and their rate limit counts per (key, client IP). `allowedOrigins` limits browser use to those exact ' +
  "origins (a request without `Origin` is not a browser's and passes). See docs/TRUST_AND_SAFETY.md.";

@ApiTags('account')
@ApiSecurity('x-api-key')
@Controller('api/v2/openapi/account')
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Get('me')
  @ApiOperation({ summary: 'The account behind the key: id, name, roles (and webhook secret for advertisers and publishers)' })
  @ApiEnvelope(AccountMeDto)
  @ApiErrors(401)
  async me(@CurrentPrincipal() principal: Principal): Promise<Envelope<AccountMeDto>> {
    return ok(AccountMeDto.fromAccount(await this.accounts.ownAccount(principal.accountId)));
  }

  @Post('postback-token/rotate')
  @HttpCode(200)
  @Roles('advertiser')
  @ApiOperation({
    summary: 'Replace your postback token; answers the new one',
    description: 'It names your account in server-to-server postback URLs (`GET /postback?token=`): URLs with the old token answer 401 from then on.',
  })
  @ApiEnvelope(AccountMeDto)
  @ApiErrors(401, 403)
  async rotatePostbackToken(@CurrentPrincipal() principal: Principal): Promise<Envelope<AccountMeDto>> {
    return ok(AccountMeDto.fromAccount(await this.accounts.rotatePostbackToken(principal.accountId)));
  }

  @Post('update')
  @HttpCode(200)
  @ApiOperation({
    summary: "Change your account's time zone; answers the account",
    description:
      'Daily budgets, spentToday and day series follow local days of the zone. The zone in force keeps today: the new ' +
      'one applies from its next local midnight (`nextTimeZone`, `timeZoneChangesAt` until then).',
  })
  @ApiEnvelope(AccountMeDto)
  @ApiErrors(400, 401, 403)
  async update(@CurrentPrincipal() principal: Principal, @Body() body: AccountUpdateDto): Promise<Envelope<AccountMeDto>> {
    return ok(AccountMeDto.fromAccount(await this.accounts.changeTimeZone(principal.accountId, body.timeZone)));
  }

  @Post('webhook-secret/rotate')
  @HttpCode(200)
  @Roles('advertiser', 'publisher')
  @ApiOperation({
    summary: 'Replace your webhook secret; answers the new one',
    description:
      'It signs the calls to your verification endpoint (advertisers) and your viewer tokens (publishers, x-adnet-viewer): ' +
      'tokens signed with the old secret are refused from then on.',
  })
  @ApiEnvelope(AccountMeDto)
  @ApiErrors(401, 403)
  async rotateWebhookSecret(@CurrentPrincipal() principal: Principal): Promise<Envelope<AccountMeDto>> {
    return ok(AccountMeDto.fromAccount(await this.accounts.rotateWebhookSecret(principal.accountId)));
  }

  @Post('keys')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Issue another key for your account (shown once); a serve key (and the published test key) cannot manage keys',
    description: SCOPES_DESCRIPTION,
  })
  @ApiEnvelope(KeyCreatedDto)
  @ApiErrors(400, 401, 403)
  async issueKey(@CurrentPrincipal() principal: Principal, @Body() body: KeyCreateDto): Promise<Envelope<KeyCreatedDto>> {
    const { key, apiKey } = await this.accounts.issueOwnKey(principal, keyOptions(body));
    return ok({ keyId: key.id, apiKey, scope: key.scope });
  }

  @Get('keys')
  @ApiOperation({ summary: "Your account's keys, newest first, without their secrets" })
  @ApiEnvelope(KeyListDto)
  @ApiErrors(401, 403)
  async listKeys(@CurrentPrincipal() principal: Principal): Promise<Envelope<KeyListDto>> {
    return ok({ keys: (await this.accounts.listOwnKeys(principal)).map(KeyResponseDto.from) });
  }

  @Post('keys/revoke')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Revoke one of your keys; it answers 401 from then on (idempotent)',
    description: "Another account's key id answers 404 like an unknown one. Other server processes stop accepting it within `KEY_CACHE_TTL_MS`.",
  })
  @ApiEnvelope(ResultDto)
  @ApiErrors(400, 401, 403, 404)
  async revokeKey(@CurrentPrincipal() principal: Principal, @Body() body: KeyRevokeDto): Promise<Envelope<ResultDto>> {
    await this.accounts.revokeOwnKey(principal, body.keyId);
    return ok({ result: 'success' });
  }
}

@ApiTags('admin')
@ApiSecurity('x-api-key')
@Roles('admin')
@Controller('api/v2/admin')
export class AdminAccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Post('accounts')
  @HttpCode(200)
  @ApiOperation({ summary: 'Create an account; answers its first API key (shown once)' })
  @ApiEnvelope(AccountCreatedDto)
  @ApiErrors(400, 401, 403)
  async create(@Body() body: AccountCreateDto): Promise<Envelope<AccountCreatedDto>> {
    const { account, apiKey } = await this.accounts.createAccount(body.name, body.roles, body.timeZone);
    return ok({ accountId: account.id, apiKey });
  }

  @Get('accounts')
  @ApiOperation({ summary: 'List accounts, newest first' })
  @ApiEnvelope(AccountListDto)
  @ApiErrors(400, 401, 403)
  async list(@Query() query: PagingQueryDto): Promise<Envelope<AccountListDto>> {
    const [accounts, total] = await this.accounts.listAccounts(query.skip, query.pageSize);
    return ok({ accounts: accounts.map(AccountResponseDto.from), total, current: query.current, pageSize: query.pageSize });
  }

  @Get('accounts/:accountId')
  @ApiOperation({ summary: 'One account' })
  @ApiEnvelope(AccountResponseDto)
  @ApiErrors(401, 403, 404)
  async detail(@Param('accountId') accountId: string): Promise<Envelope<AccountResponseDto>> {
    return ok(AccountResponseDto.from(await this.accounts.getAccount(accountId)));
  }

  @Post('accounts/:accountId/keys')
  @HttpCode(200)
  @ApiOperation({ summary: 'Issue another API key for the account (shown once)', description: SCOPES_DESCRIPTION })
  @ApiEnvelope(KeyCreatedDto)
  @ApiErrors(400, 401, 403, 404)
  async issueKey(@Param('accountId') accountId: string, @Body() body: KeyCreateDto): Promise<Envelope<KeyCreatedDto>> {
    const { key, apiKey } = await this.accounts.issueKey(accountId, keyOptions(body));
    return ok({ keyId: key.id, apiKey, scope: key.scope });
  }

  @Get('accounts/:accountId/keys')
  @ApiOperation({ summary: "The account's keys, without their secrets" })
  @ApiEnvelope(KeyListDto)
  @ApiErrors(401, 403, 404)
  async listKeys(@Param('accountId') accountId: string): Promise<Envelope<KeyListDto>> {
    const keys = await this.accounts.listKeys(accountId);
    return ok({ keys: keys.map(KeyResponseDto.from) });
  }

  @Post('keys/:keyId/revoke')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke a key; it answers 401 from then on (idempotent)' })
  @ApiEnvelope(ResultDto)
  @ApiErrors(401, 403, 404)
  async revoke(@Param('keyId') keyId: string): Promise<Envelope<ResultDto>> {
    await this.accounts.revokeKey(keyId);
    return ok({ result: 'success' });
  }
}
