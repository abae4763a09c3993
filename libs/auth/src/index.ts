export { AuthModule } from './auth.module';
export { authConfig, API_ROLES, DEV_API_KEY } from './auth.config';
export type { ApiRole, AuthConfig } from './auth.config';
export { API_KEY_SCHEME, BEARER_SCHEME, Caller, RequireApiKey } from './api-key.guard';
export type { ApiCaller } from './api-key.guard';
export { ApiErrorDto } from './api-error.dto';
