import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { SESSION_ORIGINS } from '@app/contracts';
import type { SessionList, SessionOrigin, SessionSummary } from '@app/contracts';
import { RUN_STATUSES } from '../entities/diagnosis-run.entity';
import { ALERT_LABELS_SCHEMA, nullableEnum } from './trace.dto';

/** `limit` (1–100, default 20) of a paginated list. */
export class LimitQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}

/** Lists page by keyset cursor: a page costs the same however deep it is. */
export class CursorPageQueryDto extends LimitQueryDto {
  @ApiPropertyOptional({
    maxLength: 200,
    description: 'The `next_cursor` of the previous page; omitted for the first (newest) page',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}

/** The session list's query: a cursor page of the caller's own sessions, or of the alert groups'. */
export class SessionPageQueryDto extends CursorPageQueryDto {
  @ApiPropertyOptional({
    enum: ['own', 'alert'],
    default: 'own',
    description:
      'own: sessions the calling key created; alert: the alert groups’ sessions (any trace_reader)',
  })
  @IsOptional()
  @IsIn(['own', 'alert'])
  scope?: 'own' | 'alert';
}

export class SessionSummaryDto implements SessionSummary {
  @ApiProperty() session_id!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time', description: 'Last activity: a run started or ended (the list order)' })
  updated_at!: string;
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'Start of the newest ended run',
  })
  last_run_at!: string | null;
  @ApiProperty({ description: 'Runs that have ended (a run in flight counts when it ends)' })
  run_count!: number;
  @ApiProperty({
    ...nullableEnum(RUN_STATUSES.filter((status) => status !== 'RUNNING')),
    description: 'Terminal status of the newest ended run; null before the first run ends',
  })
  last_outcome!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    maxLength: 200,
    description: 'The newest ended run’s query, cut to 200 characters',
  })
  last_query!: string | null;
  @ApiProperty({ enum: SESSION_ORIGINS }) origin!: SessionOrigin;
  @ApiProperty({
    ...ALERT_LABELS_SCHEMA,
    nullable: true,
    description: 'An alert group’s common labels; null for a chat session',
  })
  alert_labels!: Record<string, string> | null;
}

export class SessionListDto implements SessionList {
  @ApiProperty({ type: [SessionSummaryDto] }) sessions!: SessionSummaryDto[];
  @ApiProperty() limit!: number;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Pass as `cursor` for the next (older) page; null on the last page',
  })
  next_cursor!: string | null;
}
