import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { isIdString, IsOneOf, MaxChars } from '../../common/validators';
import { IsDefined, IsNotEmpty, IsObject, IsString, ValidateNested } from 'class-validator';
import { OpenApiAlias } from '../../common/open-api-aliases';
import { CLICK_MESSAGE_VALUES, CLICK_MESSAGES, COMPLETION_MESSAGE_VALUES, type ClickMessage, type CompletionMessage } from '../click-messages';

/** Endpoint 6's events: a click, or (docs/REWARDED_ADS.md) the user watched the served ad to the end. */
export const REPORTED_EVENT_TYPES = ['click', 'complete'] as const;

const Id = (max: number) => (target: object, key: string | symbol) => {
  IsString()(target, key);
  IsNotEmpty({ message: '$property is required' })(target, key);
  MaxChars(max)(target, key);
};

export class ClickEventDataDto {
  @ApiProperty({ example: '01jd3k5m8q9r2s4t6v8w0x2y4z' })
  @Id(64)
  adBlockId: string;

  @ApiProperty({ description: "The user's id on the messaging platform (the openId the ad was fetched for)", example: '5512345678' })
  @Id(128)
  @OpenApiAlias()
  messengerUserId: string;

  @ApiProperty({ example: 'ad_01jd3k5m8q9r2s4t6v8w0x2y4q' })
  @Id(64)
  adId: string;

  @ApiProperty({ example: '01jd3k5m8q9r2s4t6v8w0x2y4q' })
  @Id(64)
  campaignId: string;
}

export class ClickReportDto {
  @ApiProperty({
    enum: REPORTED_EVENT_TYPES,
    description:
      '`click`: the user clicked the served ad. `complete`: the user watched it to the end (rewarded blocks, docs/REWARDED_ADS.md); ' +
      "counted once per impression, at least the block's minViewMs after the serve, else answered success and not counted",
    example: 'click',
  })
  @IsOneOf(REPORTED_EVENT_TYPES)
  eventType: (typeof REPORTED_EVENT_TYPES)[number];

  @ApiProperty({ type: ClickEventDataDto })
  @IsDefined({ message: '$property is required' })
  @IsObject()
  @ValidateNested()
  @Type(() => ClickEventDataDto)
  eventData: ClickEventDataDto;

  /** The plainly valid report (see FastAccepting); anything else goes through the decorators above. */
  static acceptFast(value: unknown): ClickReportDto | null {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
    const { eventType, eventData } = value as Record<string, unknown>;
    if (eventType !== 'click' || typeof eventData !== 'object' || eventData === null || Array.isArray(eventData)) return null;
    const { adBlockId, messengerUserId, adId, campaignId } = eventData as Record<string, unknown>;
    if (!isIdString(adBlockId, 64) || !isIdString(messengerUserId, 128) || !isIdString(adId, 64) || !isIdString(campaignId, 64)) {
      return null;
    }
    const data = new ClickEventDataDto();
    data.adBlockId = adBlockId;
    data.messengerUserId = messengerUserId;
    data.adId = adId;
    data.campaignId = campaignId;
    const report = new ClickReportDto();
    report.eventType = eventType;
    report.eventData = data;
    return report;
  }
}

export class ClickResultDto {
  @ApiProperty({ example: 'success' })
  status: string;

  @ApiProperty({
    description:
      'What became of the click, one of a fixed list: counted (and billed on CPC), a repeat, a test ad, recorded without ' +
      'billing (the campaign not billable now), or recorded as invalid traffic with its reason (never billed, shown in ' +
      '`invalidClicks`). A person clicks some time after the ad shows: a click sooner than `MIN_CLICK_DELAY_MS` ' +
      '(300 ms) after its impression is invalid. A completion (`eventType: complete`) answers one of the `completion …` ' +
      'messages (or the test-ad one).',
    enum: [...CLICK_MESSAGE_VALUES, ...COMPLETION_MESSAGE_VALUES],
    enumName: 'ClickMessage',
    example: CLICK_MESSAGES.counted,
  })
  msg: ClickMessage | CompletionMessage;
}
