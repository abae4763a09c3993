import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

const RUN_ID = /^[A-Za-z0-9_-]{1,64}$/;

export class TraceQueryDto {
  @ApiPropertyOptional({
    description: 'One run of the session; omitted, the session’s runs are listed newest first.',
  })
  @IsOptional()
  @IsString()
  @Matches(RUN_ID, { message: 'runId must be 1-64 characters of A-Z, a-z, 0-9, _ or -' })
  runId?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ minimum: 0, default: 0 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  offset?: number;
}

export class ReasoningQueryDto {
  @ApiPropertyOptional({ description: 'Required: the run whose model steps to read.' })
  @IsString({ message: 'runId is required' })
  @Matches(RUN_ID, { message: 'runId must be 1-64 characters of A-Z, a-z, 0-9, _ or -' })
  runId!: string;
}
