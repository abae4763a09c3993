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
