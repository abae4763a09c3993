export { ConfigValidationError, EnvBoolean, EnvSection, envSections, validateEnv } from './env-validation';
export type { EnvSectionInfo } from './env-validation';
export { describeEnvClass } from './env-reference';
export type { EnvKeyReference } from './env-reference';
