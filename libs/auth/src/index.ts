export { AuthModule } from './auth.module';
export { authConfig } from './auth.config';
export type { AuthConfig } from './auth.config';
export { API_KEY_SCHEME, BEARER_SCHEME, Caller, RequireApiKey } from './api-key.guard';
export type { ApiCaller } from './api-key.guard';
export { ApiErrorDto } from './api-error.dto';
