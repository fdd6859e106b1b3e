import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** `current` ≥ 1 (default 1) and 1 ≤ `pageSize` ≤ 100 (default 20); anything else is a 400. */
export class PagingQueryDto {
  @ApiPropertyOptional({ description: 'Page number, from 1', default: 1, minimum: 1, maximum: 1_000_000, example: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: '$property must be an integer' })
  @Min(1, { message: '$property must be at least 1' })
  @Max(1_000_000, { message: '$property must be at most 1000000' })
  current: number = 1;

  @ApiPropertyOptional({ description: 'Items per page', default: 20, minimum: 1, maximum: 100, example: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: '$property must be an integer' })
  @Min(1, { message: '$property must be at least 1' })
  @Max(100, { message: '$property must be at most 100' })
  pageSize: number = 20;

  get skip(): number {
    return (this.current - 1) * this.pageSize;
  }
}

/** The paging fields of a list answer, beside its items. */
export class PageDto {
  @ApiProperty({ description: 'Items in all pages', example: 42 })
  total: number;

  @ApiProperty({ example: 1 })
  current: number;

  @ApiProperty({ example: 20 })
  pageSize: number;
}

/** A list answer of the Open API, which also carries `success: true`. */
export class SuccessPageDto extends PageDto {
  @ApiProperty({ example: true })
  success: boolean;
}
