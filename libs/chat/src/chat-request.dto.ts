import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsOptional,
  IsString,
  Length,
  Matches,
} from 'class-validator';
import { TARGET_NAME } from '@app/notify';
import { MAX_QUERY_CHARS } from '@app/tools';
import { wellFormed } from '@app/trace';

/** Targets one chat request may ask to notify. */
export const MAX_NOTIFY_TARGETS = 10;

const SESSION_ID = /^[A-Za-z0-9_-]{8,64}$/;
/**
 * Code units class-validator's Length counts otherwise than `length` (surrogate pairs, variation
 * selectors), or wellFormed would replace (lone surrogates).
 */
const NOT_PLAIN = /[\uD800-\uDFFF]|\uFE0E|\uFE0F/;

export class ChatRequestDto {
  @ApiPropertyOptional({
    description: 'Continue this session; omitted, a new session starts.',
    pattern: '^[A-Za-z0-9_-]{8,64}$',
  })
  // Issued ids are lowercase and the database compares them case-insensitively: one canonical form,
  // so a run is stored and echoed under the id that was issued, not the caller's spelling of it.
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.toLowerCase() : value))
  @IsOptional()
  @IsString()
  @Matches(SESSION_ID, {
    message: 'session_id must be 8-64 characters of A-Z, a-z, 0-9, _ or -',
  })
  session_id?: string;

  @ApiProperty({
    minLength: 1,
    maxLength: MAX_QUERY_CHARS,
    example: 'order-123 payment times out, find out why',
  })
  // A lone surrogate (half an emoji) is no text any store or model accepts: replaced, not refused.
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' ? wellFormed(value.trim()) : value,
  )
  @IsString()
  @Length(1, MAX_QUERY_CHARS, {
    message: `query must be 1 to ${MAX_QUERY_CHARS} characters after trimming`,
  })
  query!: string;

  @ApiPropertyOptional({
    description:
      'Notification targets (names in NOTIFY_TARGETS_FILE) to send the run’s released conclusion, or its fixed fallback text, to when it ends (docs/notifications.md). A name that is not configured is answered 400.',
    type: [String],
    minItems: 1,
    maxItems: MAX_NOTIFY_TARGETS,
    example: ['ops-slack'],
  })
  @IsOptional()
  @IsArray({ message: 'notify must be an array of notification target names' })
  @ArrayMinSize(1, { message: 'notify must name at least one notification target' })
  @ArrayMaxSize(MAX_NOTIFY_TARGETS, { message: `notify may name at most ${MAX_NOTIFY_TARGETS} targets` })
  @ArrayUnique({ message: 'notify must not name a target twice' })
  @IsString({ each: true, message: 'notify must be an array of notification target names' })
  @Matches(TARGET_NAME, { each: true, message: 'each notify entry must be a target name (a-z, 0-9, _ or -)' })
  notify?: string[];

  /**
   * The DTO of a plain valid body (`query` of ordinary characters, at most a `session_id` besides) as the
   * global validation pipe builds it, without class-transformer and class-validator, which cost ~100 µs
   * a request while a burst is taken in; null for any other body, which the pipe judges and words the
   * errors of. request-validation.pipe.spec checks that both agree.
   */
  static ofPlainBody(body: unknown): ChatRequestDto | null {
    if (typeof body !== 'object' || body === null || Object.getPrototypeOf(body) !== Object.prototype)
      return null;
    const keys = Object.keys(body);
    if (keys.length > 2 || !keys.every((key) => key === 'query' || key === 'session_id')) return null;
    const { query, session_id: sessionId } = body as { query?: unknown; session_id?: unknown };
    if (typeof query !== 'string') return null;
    const trimmed = query.trim();
    if (trimmed.length < 1 || trimmed.length > MAX_QUERY_CHARS || NOT_PLAIN.test(trimmed)) return null;
    if (sessionId !== undefined && (typeof sessionId !== 'string' || !SESSION_ID.test(sessionId)))
      return null;
    const dto = new ChatRequestDto();
    dto.query = trimmed;
    if (sessionId !== undefined) dto.session_id = sessionId.toLowerCase();
    return dto;
  }
}
