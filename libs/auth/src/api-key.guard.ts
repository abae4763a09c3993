import {
  applyDecorators,
  BadRequestException,
  CanActivate,
  createParamDecorator,
  ExecutionContext,
  ForbiddenException,
  Inject,
  Injectable,
  SetMetadata,
  UnauthorizedException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  ApiBearerAuth,
  ApiForbiddenResponse,
  ApiSecurity,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { ApiRole, authConfig, AuthConfig } from './auth.config';
import { ApiErrorDto } from './api-error.dto';

const REQUIRED_ROLES = 'superbiz:required-roles';
const CALLER = Symbol('superbiz:api-caller');

/** The OpenAPI security schemes of the API key (the Authorize button of /api/docs): header or bearer. */
export const API_KEY_SCHEME = 'api-key';
export const BEARER_SCHEME = 'bearer';

/** Who called: the SHA-256 (hex) of the presented key, which owns the sessions it creates, and its roles. */
export interface ApiCaller {
  readonly keyDigest: string;
  readonly roles: readonly ApiRole[];
}

/** Query parameters that look like a credential: a key in a URL ends up in proxies' and browsers' logs. */
const CREDENTIAL_PARAM = /^(x[-_]?)?(api[-_]?key|apikey|key|token|access[-_]?token|auth|authorization)$/i;

const digest = (key: string) => createHash('sha256').update(key, 'utf8').digest();

/**
 * The one API-key guard, registered globally; a route needs a key only when it carries
 * `@RequireApiKey(...roles)`. 401 without a valid key, 403 with a key that has none of the roles, 400 for a key
 * in the query string (on every route). Keys are compared as SHA-256 digests in constant time, every
 * configured key each time, and are never logged.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  private readonly keys: { digest: Buffer; roles: readonly ApiRole[] }[];

  constructor(
    private readonly reflector: Reflector,
    @Inject(authConfig.KEY) config: AuthConfig,
  ) {
    this.keys = config.apiKeys.map(({ key, roles }) => ({ digest: digest(key), roles }));
  }

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<Request & { [CALLER]?: ApiCaller }>();
    if (Object.keys(request.query ?? {}).some((name) => CREDENTIAL_PARAM.test(name))) {
      throw new BadRequestException(
        'API keys are not accepted in the URL; send the x-api-key header or Authorization: Bearer.',
      );
    }
    const required = this.reflector.getAllAndOverride<readonly ApiRole[] | undefined>(REQUIRED_ROLES, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!required) return true;
    const header = request.headers['x-api-key'];
    const bearer = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1];
    const presented = (typeof header === 'string' ? header : undefined) ?? bearer;
    if (!presented)
      throw new UnauthorizedException('An API key is required (x-api-key header or Authorization: Bearer).');
    const candidate = digest(presented);
    let roles: readonly ApiRole[] | null = null;
    for (const key of this.keys) {
      if (timingSafeEqual(key.digest, candidate)) roles = key.roles;
    }
    if (!roles) throw new UnauthorizedException('The API key is not valid.');
    if (!required.some((role) => roles!.includes(role)))
      throw new ForbiddenException(`This API key lacks the ${required.join(' or ')} role.`);
    request[CALLER] = { keyDigest: candidate.toString('hex'), roles };
    return true;
  }
}

/**
 * A controller or route that needs an API key with at least one of `roles`: the roles and its OpenAPI
 * security and errors.
 */
export function RequireApiKey(...roles: [ApiRole, ...ApiRole[]]): ClassDecorator & MethodDecorator {
  return applyDecorators(
    SetMetadata(REQUIRED_ROLES, roles),
    ApiSecurity(API_KEY_SCHEME),
    ApiBearerAuth(BEARER_SCHEME),
    ApiUnauthorizedResponse({ type: ApiErrorDto, description: 'No API key, or not a valid one' }),
    ApiForbiddenResponse({
      type: ApiErrorDto,
      description: `The API key lacks the ${roles.join(' or ')} role`,
    }),
    ApiTooManyRequestsResponse({
      type: ApiErrorDto,
      description: 'Rate limit (THROTTLE_LIMIT per THROTTLE_TTL_MS)',
    }),
  );
}

/** The caller of a route guarded by `@RequireApiKey`, as a handler parameter. */
export const Caller = createParamDecorator((_data: unknown, context: ExecutionContext): ApiCaller => {
  const caller = context.switchToHttp().getRequest<{ [CALLER]?: ApiCaller }>()[CALLER];
  // A handler asking for its caller without @RequireApiKey is a programming error, not a client one.
  if (!caller) throw new Error('Caller() used on a route without @RequireApiKey');
  return caller;
});
