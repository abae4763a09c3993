import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { CursorPageQueryDto } from './sessions.dto';

const RUN_ID = /^[A-Za-z0-9_-]{1,64}$/;

export class TraceQueryDto extends CursorPageQueryDto {
  @ApiPropertyOptional({
    description:
      'One run of the session; omitted, the session’s runs are listed newest first, a page at a time (limit, cursor).',
  })
  @IsOptional()
  @IsString()
  @Matches(RUN_ID, { message: 'runId must be 1-64 characters of A-Z, a-z, 0-9, _ or -' })
  runId?: string;
}

export class ReasoningQueryDto {
  @ApiPropertyOptional({ description: 'Required: the run whose model steps to read.' })
  @IsString({ message: 'runId is required' })
  @Matches(RUN_ID, { message: 'runId must be 1-64 characters of A-Z, a-z, 0-9, _ or -' })
  runId!: string;
}
