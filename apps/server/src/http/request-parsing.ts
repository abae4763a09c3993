import {
  BadRequestException,
  CanActivate,
  ExecutionContext,
  HttpException,
  Injectable,
  Module,
  PayloadTooLargeException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import { DECORATORS } from '@nestjs/swagger';
import type { Request } from 'express';

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

/** What an endpoint takes when it declares nothing else with `@ApiConsumes`. */
const JSON_MEDIA_TYPE = 'application/json';

/** The media type (lowercase) and charset label (lowercase, unquoted) of a Content-Type header. */
export function parseContentType(header: string | undefined): { mediaType: string; charset: string | null } {
  const [type = '', ...parameters] = (header ?? '').split(';');
  let charset: string | null = null;
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=');
    if (name.trim().toLowerCase() === 'charset')
      charset = value
        .trim()
        .replace(/^"(.*)"$/u, '$1')
        .toLowerCase();
  }
  return { mediaType: type.trim().toLowerCase(), charset };
}

/**
 * Why a body with this Content-Type is refused by an endpoint taking `accepted` media types, or null
 * when it is fine. JSON must be UTF-8 (charset absent or utf-8): the parser would decode UTF-16/32 too,
 * and a `text/plain` or form body would reach validation as if it were the JSON the endpoint documents.
 */
export function unsupportedBodyReason(
  header: string | undefined,
  accepted: readonly string[],
): string | null {
  const { mediaType, charset } = parseContentType(header);
  if (!accepted.includes(mediaType)) return `request body must be sent as ${accepted.join(' or ')}`;
  if (mediaType === JSON_MEDIA_TYPE && charset !== null && charset !== 'utf-8') {
    return 'request body charset is not supported; send UTF-8';
  }
  return null;
}

/** True when the request carries a body (chunked, or a non-zero Content-Length). */
function carriesBody(request: Request): boolean {
  return request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length']) > 0;
}

/**
 * Refuses a body the endpoint cannot take before its interceptors and the validation pipe see it: 415
 * when its Content-Type is not what the endpoint's OpenAPI document says it consumes (`@ApiConsumes`,
 * e.g. multipart/form-data for uploads; otherwise application/json in UTF-8), so before multer reads an
 * upload; 400 when its JSON nests deeper than MAX_BODY_DEPTH, before validation recurses into it.
 * A guard, not interceptors: each global interceptor cost every request an rxjs chain and two
 * AsyncResource bindings, a guard is one call. RequestBodyModule registers it after the API-key and
 * rate-limit guards, so 401, 403 and 429 still come first.
 */
@Injectable()
export class RequestBodyGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<Request>();
    if (carriesBody(request)) {
      const accepted = this.reflector.getAllAndOverride<string[] | undefined>(DECORATORS.API_CONSUMES, [
        context.getHandler(),
        context.getClass(),
      ]) ?? [JSON_MEDIA_TYPE];
      const reason = unsupportedBodyReason(request.headers['content-type'], accepted);
      if (reason) throw new UnsupportedMediaTypeException(reason);
    }
    if (nestedDeeperThan(request.body, MAX_BODY_DEPTH)) {
      throw new BadRequestException(`request body is nested too deeply (more than ${MAX_BODY_DEPTH} levels)`);
    }
    return true;
  }
}

/**
 * Registers RequestBodyGuard as a global guard. Global guards run in the order their modules were
 * scanned, so AppModule imports this module after AuthModule: the body is judged after the caller.
 */
@Module({ providers: [{ provide: APP_GUARD, useClass: RequestBodyGuard }] })
export class RequestBodyModule {}
