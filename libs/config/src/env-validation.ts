import 'reflect-metadata';
import { plainToInstance, Transform } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';

/** Start-up fails with this error; its message names every offending key and never echoes values. */
export class ConfigValidationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigValidationError';
  }
}

type EnvClass<T> = new () => T;

/** Where an environment class belongs: the lib that reads it and the reference section it is listed in. */
export interface EnvSectionInfo {
  lib: string;
  title: string;
}

// Static metadata about classes (like class-validator's own storage), never run state.
const ENV_SECTIONS = new Map<EnvClass<object>, EnvSectionInfo>();

/**
 * Declares an environment class: the lib that reads it and its section of the generated configuration
 * reference (docs/configuration-reference.md). `validateEnv` refuses a class without it, so every key the
 * service validates is in the reference.
 */
export function EnvSection(lib: string, title: string): ClassDecorator {
  return (target) => {
    ENV_SECTIONS.set(target as unknown as EnvClass<object>, { lib, title });
  };
}

/** Every declared environment class with its section, in declaration order. */
export function envSections(): { envClass: EnvClass<object>; section: EnvSectionInfo }[] {
  return [...ENV_SECTIONS].map(([envClass, section]) => ({ envClass, section }));
}

function describe(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((error) => {
    const key = `${prefix}${error.property}`;
    const own = Object.values(error.constraints ?? {}).map((message) =>
      message.startsWith(error.property)
        ? `${key}${message.slice(error.property.length)}`
        : `${key}: ${message}`,
    );
    return [...own, ...describe(error.children ?? [], `${key}.`)];
  });
}

/**
 * Validates a flat environment class whose property names are the environment variable names.
 * Defaults are the class's property initialisers; unknown variables are ignored.
 */
export function validateEnv<T extends object>(
  envClass: EnvClass<T>,
  env: Record<string, string | undefined> = process.env,
): T {
  if (!ENV_SECTIONS.has(envClass as EnvClass<object>)) {
    throw new Error(
      `${envClass.name} is not declared with @EnvSection: the configuration reference would miss it`,
    );
  }
  const defined = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const instance = plainToInstance(envClass, defined, {
    enableImplicitConversion: true,
    exposeDefaultValues: true,
  });
  const errors = validateSync(instance, { forbidUnknownValues: true });
  if (errors.length > 0) {
    throw new ConfigValidationError(describe(errors));
  }
  return instance;
}

/** Environment booleans are strings: only "true"/"1" and "false"/"0" are accepted. */
export function EnvBoolean(): PropertyDecorator {
  return Transform(({ obj, key, value }: { obj: Record<string, unknown>; key: string; value: unknown }) => {
    const raw = obj[key];
    if (typeof raw === 'boolean') return raw;
    if (raw === undefined) return value;
    const text = String(raw).trim().toLowerCase();
    if (text === 'true' || text === '1') return true;
    if (text === 'false' || text === '0') return false;
    return raw;
  });
}
