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
import { Reflector } from '@nestjs/core';
import { DECORATORS } from '@nestjs/swagger';
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
 * Refuses with 415 a body whose Content-Type the endpoint does not take: what its OpenAPI document
 * says it consumes (`@ApiConsumes`, e.g. multipart/form-data for uploads), otherwise application/json
 * in UTF-8. Runs before route interceptors, so before multer reads an upload.
 */
@Injectable()
export class ContentTypeInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() === 'http') {
      const request = context.switchToHttp().getRequest<Request>();
      if (carriesBody(request)) {
        const accepted = this.reflector.getAllAndOverride<string[] | undefined>(DECORATORS.API_CONSUMES, [
          context.getHandler(),
          context.getClass(),
        ]) ?? [JSON_MEDIA_TYPE];
        const reason = unsupportedBodyReason(request.headers['content-type'], accepted);
        if (reason) throw new UnsupportedMediaTypeException(reason);
      }
    }
    return next.handle();
  }
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
