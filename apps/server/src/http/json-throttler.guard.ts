import { ExecutionContext, HttpException, HttpStatus, Injectable } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerLimitDetail } from '@nestjs/throttler';

/**
 * The throttler with a JSON 429 (`message`, `retry_after_s`) instead of the library's bare string, so
 * clients (the web UI) can show the wait; the library already sets `Retry-After` in seconds.
 */
@Injectable()
export class JsonThrottlerGuard extends ThrottlerGuard {
  protected override throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const retryAfter = Math.max(1, Math.ceil(detail.timeToBlockExpire));
    throw new HttpException(
      {
        statusCode: HttpStatus.TOO_MANY_REQUESTS,
        error: 'Too Many Requests',
        message: `Too many requests; try again in ${retryAfter} s.`,
        retry_after_s: retryAfter,
      },
      HttpStatus.TOO_MANY_REQUESTS,
    );
  }
}
