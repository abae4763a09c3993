import {
  applyDecorators,
  CanActivate,
  ExecutionContext,
  ForbiddenException,
  Inject,
  Injectable,
  SetMetadata,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiHeader } from '@nestjs/swagger';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { ApiRole, traceConfig, TraceConfig } from '../config/trace.config';

const REQUIRED_ROLE = 'superbiz:required-role';

/** The role a route needs; routes without it are not guarded. */
const RequireRole = (role: ApiRole) => SetMetadata(REQUIRED_ROLE, role);

const digest = (key: string) => createHash('sha256').update(key, 'utf8').digest();

/**
 * API keys from the environment with roles (chat, trace_reader, auditor): 401 without a valid key,
 * 403 with a key that lacks the role. Keys are compared as SHA-256 digests in constant time, every
 * configured key each time, and are never logged.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  private readonly keys: { digest: Buffer; roles: readonly ApiRole[] }[];

  constructor(
    private readonly reflector: Reflector,
    @Inject(traceConfig.KEY) config: TraceConfig,
  ) {
    this.keys = config.apiKeys.map(({ key, roles }) => ({ digest: digest(key), roles }));
  }

  canActivate(context: ExecutionContext): boolean {
    const role = this.reflector.getAllAndOverride<ApiRole | undefined>(REQUIRED_ROLE, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!role) return true;
    const request = context.switchToHttp().getRequest<Request>();
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
    if (!roles.includes(role)) throw new ForbiddenException(`This API key lacks the ${role} role.`);
    return true;
  }
}

/** A controller or route that needs an API key with `role`: the guard, the role and the OpenAPI header. */
export function RequireApiKey(role: ApiRole): ClassDecorator & MethodDecorator {
  return applyDecorators(
    ApiHeader({
      name: 'x-api-key',
      required: true,
      description: `API key with the ${role} role (or Authorization: Bearer)`,
    }),
    UseGuards(ApiKeyGuard),
    RequireRole(role),
  );
}
