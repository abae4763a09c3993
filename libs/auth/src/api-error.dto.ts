import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** The body of every error answer (4xx/5xx): Nest's shape, with a safe message. */
export class ApiErrorDto {
  @ApiProperty({ example: 400 })
  statusCode!: number;

  @ApiProperty({
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
    example: 'query must be 1 to 4000 characters after trimming',
  })
  message!: string | string[];

  @ApiPropertyOptional({ example: 'Bad Request' })
  error?: string;

  @ApiPropertyOptional({ example: 30, description: 'On a rate-limit 429: seconds until a retry may pass' })
  retry_after_s?: number;
}
