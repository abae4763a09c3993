import { parse } from 'yaml';
import { z } from 'zod';
import { ConfigValidationError } from '@app/config';

/** A tool's YAML config file checked against its schema; every problem names the file and the key. */
export function parseToolConfigFile<Schema extends z.ZodType>(
  text: string,
  origin: string,
  schema: Schema,
): z.output<Schema> {
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw new ConfigValidationError([
      `${origin}: not valid YAML (${(error as Error).message.split('\n')[0]})`,
    ]);
  }
  const parsed = schema.safeParse(document);
  if (!parsed.success) {
    throw new ConfigValidationError(
      parsed.error.issues.map((issue) => `${origin}: ${issue.path.join('.')}: ${issue.message}`),
    );
  }
  return parsed.data;
}

/** The value of a `${NAME}` reference; unset (or, unless allowed, empty) stops start-up naming the key. */
export function resolveEnvReference(
  reference: string,
  path: string,
  env: Record<string, string | undefined>,
  { allowEmpty = false }: { allowEmpty?: boolean } = {},
): string {
  const name = reference.slice(2, -1);
  const value = env[name];
  if (value === undefined || (!allowEmpty && value === ''))
    throw new ConfigValidationError([`${path}: environment variable ${name} is not set`]);
  return value;
}
