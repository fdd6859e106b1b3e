import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { isIdString, IsOneOf, MaxChars } from '../../common/validators';
import { IsDefined, IsNotEmpty, IsObject, IsString, ValidateNested } from 'class-validator';
import { OpenApiAlias } from '../../common/open-api-aliases';
import { CLICK_MESSAGE_VALUES, CLICK_MESSAGES, type ClickMessage } from '../click-messages';

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
  @ApiProperty({ enum: ['click'], example: 'click' })
  @IsOneOf(['click'])
  eventType: string;

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
      '(300 ms) after its impression is invalid.',
    enum: CLICK_MESSAGE_VALUES,
    enumName: 'ClickMessage',
    example: CLICK_MESSAGES.counted,
  })
  msg: ClickMessage;
}
