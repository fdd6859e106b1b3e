import { ApiProperty } from '@nestjs/swagger';
import type { EventCounts } from '../event-types';

/** Attributed events per type (docs/CONTRACT.md §13), as campaign detail, list and series carry them. */
export class EventCountsDto implements EventCounts {
  @ApiProperty({ description: 'Conversions (endpoint 7)', example: 4 }) conversion: number;
  @ApiProperty({ description: 'Custom event `onboard`', example: 10 }) onboard: number;
  @ApiProperty({ description: 'Custom event `register`', example: 8 }) register: number;
  @ApiProperty({ description: 'Custom event `play`', example: 6 }) play: number;
  @ApiProperty({ description: 'Custom event `payment`', example: 2 }) payment: number;
  @ApiProperty({ description: 'Custom event `withdraw`', example: 1 }) withdraw: number;
}
