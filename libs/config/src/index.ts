export { ConfigValidationError, EnvBoolean, validateEnv } from './env-validation';
