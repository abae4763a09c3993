import {
  BadRequestException,
  CallHandler,
  ExecutionContext,
  HttpException,
  Injectable,
  NestInterceptor,
  PayloadTooLargeException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';

/** Deeper request bodies are refused before validation walks them (its recursion would overflow). */
export const MAX_BODY_DEPTH = 32;

/**
 * A body-parser failure (it marks its errors with `type`) as the client error it is; null for anything
 * else. These are the client's mistakes, so they answer 4xx and are not logged as server errors.
 */
export function parsingErrorOf(exception: unknown): HttpException | null {
  const type = (exception as { type?: unknown } | null)?.type;
  switch (type) {
    case 'entity.too.large':
    case 'parameters.too.many':
      return new PayloadTooLargeException('request body is too large');
    case 'entity.parse.failed':
      return new BadRequestException('request body is not valid JSON');
    case 'charset.unsupported':
      return new UnsupportedMediaTypeException('request body charset is not supported; send UTF-8');
    case 'encoding.unsupported':
      return new UnsupportedMediaTypeException(
        'request content encoding is not supported; send identity, gzip or deflate',
      );
    case 'request.aborted':
      return new BadRequestException('request body was aborted by the client');
    case 'request.size.invalid':
      return new BadRequestException('request body length does not match Content-Length');
    default:
      return decodingErrorOf(exception);
  }
}

/** zlib and brotli failure codes: the body does not match its Content-Encoding (e.g. `br` on a plain body). */
const DECODING_CODES = /^(?:Z_[A-Z_]+|ERR__ERROR_FORMAT_[A-Z0-9_]+|ERR_BROTLI_[A-Z_]+|ERR_ZLIB_[A-Z_]+)$/u;

function decodingErrorOf(exception: unknown): HttpException | null {
  const code = (exception as { code?: unknown } | null)?.code;
  return typeof code === 'string' && DECODING_CODES.test(code)
    ? new BadRequestException('request body does not match its Content-Encoding')
    : null;
}

/** True when `value` nests objects/arrays more than `max` levels; iterative, so any depth is safe to check. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Refuses over-deep JSON bodies with 400 before the validation pipe recurses into them. */
@Injectable()
export class BodyDepthInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() === 'http') {
      const body = context.switchToHttp().getRequest<Request>().body as unknown;
      if (nestedDeeperThan(body, MAX_BODY_DEPTH)) {
        throw new BadRequestException(
          `request body is nested too deeply (more than ${MAX_BODY_DEPTH} levels)`,
        );
      }
    }
    return next.handle();
  }
}
