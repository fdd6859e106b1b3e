import { Type, applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiProperty, ApiResponse, getSchemaPath } from '@nestjs/swagger';

export interface Envelope<T> {
  code: 0;
  message: 'success';
  data: T;
}

export function ok<T>(data: T): Envelope<T> {
  return { code: 0, message: 'success', data };
}

export class FieldErrorDto {
  @ApiProperty({ example: 'budget.amount', description: 'Dotted path of the field' })
  field: string;

  @ApiProperty({ example: 'budget.amount must be a positive number' })
  message: string;
}

export class ErrorDataDto {
  @ApiProperty({ type: [FieldErrorDto], required: false, description: 'Present on validation failures and 404s' })
  errors?: FieldErrorDto[];
}

export class ErrorEnvelopeDto {
  @ApiProperty({ example: 400, description: 'The HTTP status (never 0 on failure)' })
  code: number;

  @ApiProperty({ example: 'budget.amount must be a positive number', description: 'Names the field and the problem' })
  message: string;

  @ApiProperty({ type: ErrorDataDto })
  data: ErrorDataDto;
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Bad input: a missing or invalid field, named in `message` and `data.errors` (dotted paths). Nothing is stored.',
  401: 'Missing, unknown or revoked `x-api-key`.',
  403: "The key's account lacks the role for this endpoint.",
  404: "Unknown id, or another account's: both answer the same.",
  409: 'The state machine forbids this change.',
  413: 'Body over `BODY_LIMIT`.',
  429: 'Rate limited; see the `Retry-After` header.',
};

/** A typical answer of each failure status, as the service words it (Swagger shows it under that status). */
const ERROR_EXAMPLES: Record<number, ErrorEnvelopeDto> = {
  400: {
    code: 400,
    message: 'budget.amount must be a positive number',
    data: { errors: [{ field: 'budget.amount', message: 'budget.amount must be a positive number' }] },
  },
  401: { code: 401, message: 'x-api-key is not a valid key (unknown or revoked)', data: {} },
  403: { code: 403, message: "this key's account lacks the advertiser role", data: {} },
  404: { code: 404, message: 'campaignId: campaign not found', data: { errors: [{ field: 'campaignId', message: 'campaign not found' }] } },
  409: { code: 409, message: 'exchangeCampaignId: the exchange campaign has ended', data: {} },
  413: { code: 413, message: 'request body too large', data: {} },
  429: { code: 429, message: 'rate limit exceeded, retry after 1 s', data: {} },
};

/** Documents the failure answers of an endpoint with the error envelope, each status with an example of its own. */
export function ApiErrors(...statuses: number[]) {
  return applyDecorators(
    ...[...statuses, 429].map((status) =>
      ApiResponse({ status, description: ERROR_DESCRIPTIONS[status], type: ErrorEnvelopeDto, example: ERROR_EXAMPLES[status] }),
    ),
  );
}

/** Documents a `{code: 0, message: "success", data: <model>}` answer. */
export function ApiEnvelope(model: Type<unknown>, description = 'Success') {
  return applyDecorators(
    ApiExtraModels(model),
    ApiOkResponse({
      description,
      schema: {
        type: 'object',
        required: ['code', 'message', 'data'],
        properties: {
          code: { type: 'number', example: 0 },
          message: { type: 'string', example: 'success' },
          data: { $ref: getSchemaPath(model) },
        },
      },
    }),
  );
}
