import { Body, Controller, createParamDecorator, ExecutionContext, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { Readable } from 'node:stream';
import { CurrentPrincipal, Roles } from '../accounts/auth.decorators';
import { BulkBody, HandlerDeadline } from '../common/edge/route-config';
import type { Principal } from '../accounts/principal';
import { ApiEnvelope, ApiErrors, Envelope, ok } from '../common/envelope';
import { BadRequestError } from '../common/errors';
import {
  MAX_BATCH_RECORDS,
  ProfileBatchAcceptedDto,
  ProfileBatchDto,
  ProfileBatchStatusDto,
  ProfileBatchStatusQueryDto,
  ProfileCsvImportedDto,
  ProfileStoreRebuiltDto,
  ProfileUploadQueryDto,
} from './dto/profile.dto';
import { ProfileCsvImporter } from './profile-csv-import';
import { toProfileRow } from './profile-upsert';
import { ProfilesService } from './profiles.service';

/** The raw request stream of a `text/csv` upload (see CsvContentType); not a DTO, so no validation pipe. */
const CsvUpload = createParamDecorator((_: unknown, context: ExecutionContext): unknown => context.switchToHttp().getRequest().body);

@ApiTags('user profiles')
@ApiSecurity('x-api-key')
@Roles('publisher')
@Controller('api/v2/openapi/user/profile')
export class ProfilesController {
  constructor(
    private readonly profiles: ProfilesService,
    private readonly csv: ProfileCsvImporter,
  ) {}

  @Post('batch')
  @HttpCode(200)
  @HandlerDeadline('request')
  @BulkBody()
  @ApiOperation({
    summary: `Endpoint 10: upload 1 to ${MAX_BATCH_RECORDS} user profiles`,
    description:
      'The whole batch is checked first: any bad record is a 400 naming `list.<index>.<field>` and nothing is stored. ' +
      'An accepted batch is applied by a queue job (upsert by messengerUserId: fields a record carries overwrite, absent ' +
      'fields keep their stored value, null clears one); follow it at `user/profile/batch/status`. Its targeting flags ' +
      'take effect in matching/ad as soon as the batch is `done`.\n\n' +
      "Profiles belong to the publisher that uploaded them: they target users on that publisher's own ad blocks only, " +
      'and another publisher uploading the same messengerUserId changes nothing of yours. An admin uploads for a ' +
      'publisher by naming it in `publisherId`.',
  })
  @ApiEnvelope(ProfileBatchAcceptedDto)
  @ApiErrors(400, 401, 403, 404, 413)
  async batch(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ProfileUploadQueryDto,
    @Body() body: ProfileBatchDto,
  ): Promise<Envelope<ProfileBatchAcceptedDto>> {
    const owner = await this.profiles.ownerOf(principal, query.publisherId);
    return ok({ batchId: await this.profiles.accept(owner, body.list.map(toProfileRow)) });
  }

  @Get('batch/status')
  @ApiOperation({
    summary: 'Progress of a profile batch (also of each batch of a CSV import)',
    description: "Answers the batches of the caller's account (admins: any); another account's batch is a 404 like an unknown one.",
  })
  @ApiEnvelope(ProfileBatchStatusDto)
  @ApiErrors(400, 401, 403, 404)
  async status(@CurrentPrincipal() principal: Principal, @Query() query: ProfileBatchStatusQueryDto): Promise<Envelope<ProfileBatchStatusDto>> {
    return ok(await this.profiles.status(principal, query.batchId));
  }

  @Post('batch/csv')
  @HttpCode(200)
  @HandlerDeadline('request')
  @BulkBody()
  @ApiOperation({
    summary: 'Import profiles from a CSV file (body `text/csv`, streamed)',
    description:
      'Header row with at least `messengerUserId,walletAddress,walletClassify`; optional columns `ipAddress`, `isPremium`, ' +
      '`isHighValue`, `walletHasBalance` (true/false, 1/0, yes/no), `language`; other columns are ignored. An empty cell ' +
      `keeps the stored value. Rows are checked like endpoint 10 records; errors name \`line.<line>.<field>\` (the header is ` +
      `line 1) and store nothing. Answers one batch per ${MAX_BATCH_RECORDS} rows; each reports at user/profile/batch/status. ` +
      "The profiles are the caller's own (an admin names the publisher in `publisherId`), as for user/profile/batch.",
  })
  @ApiConsumes('text/csv')
  @ApiBody({ schema: { type: 'string', example: 'messengerUserId,walletAddress,walletClassify\n5012345678,EQD4FPq-PRDi,primary\n' } })
  @ApiEnvelope(ProfileCsvImportedDto)
  @ApiErrors(400, 401, 403, 404, 413)
  async importCsv(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ProfileUploadQueryDto,
    @CsvUpload() body: unknown,
  ): Promise<Envelope<ProfileCsvImportedDto>> {
    if (!(body instanceof Readable)) throw new BadRequestError('send the file as the request body with content-type text/csv');
    // a refused upload's file is read and dropped, so the connection stays usable
    const owner = await this.profiles.ownerOf(principal, query.publisherId).catch((error: unknown) => {
      body.resume();
      throw error;
    });
    return ok(await this.csv.import(owner, body));
  }
}

@ApiTags('admin')
@ApiSecurity('x-api-key')
@Roles('admin')
@Controller('api/v2/admin/profiles')
export class ProfilesAdminController {
  constructor(private readonly profiles: ProfilesService) {}

  @Post('rebuild-store')
  @HttpCode(200)
  @HandlerDeadline('request')
  @ApiOperation({
    summary: "Rewrite every stored profile into serving's fast store",
    description: 'For when Redis lost the profile keys (serving then treats those users as unknown). Also done at start when the store is empty.',
  })
  @ApiEnvelope(ProfileStoreRebuiltDto)
  @ApiErrors(401, 403)
  async rebuildStore(): Promise<Envelope<ProfileStoreRebuiltDto>> {
    return ok({ profiles: await this.profiles.rebuildStore() });
  }
}
