import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** `limit` (1–100, default 20) and `offset` of a paginated list; the trace query adds its run id. */
export class PageQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  // 1e21 is an integer to JavaScript but not to the database driver: beyond this it is a client error.
  @Max(Number.MAX_SAFE_INTEGER)
  offset?: number;
}

export class SessionSummaryDto {
  @ApiProperty() session_id!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) last_run_at!: string | null;
  @ApiProperty() run_count!: number;
  @ApiProperty({
    nullable: true,
    type: String,
    maxLength: 200,
    description: 'The newest run’s query, cut to 200 characters',
  })
  last_query!: string | null;
}

export class SessionListDto {
  @ApiProperty({ type: [SessionSummaryDto] }) sessions!: SessionSummaryDto[];
  @ApiProperty() limit!: number;
  @ApiProperty() offset!: number;
  @ApiProperty({ description: 'All sessions of the key' }) total!: number;
}
