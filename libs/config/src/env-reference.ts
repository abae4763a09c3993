import 'reflect-metadata';
import { getMetadataStorage, ValidationArguments, ValidationTypes } from 'class-validator';

/** One environment key as the configuration reference lists it, read from the class that validates it. */
export interface EnvKeyReference {
  key: string;
  type: string;
  /** The class's property initialiser; undefined when the key is optional and has none. */
  defaultValue: unknown;
  optional: boolean;
  /** The messages a failing value gets at start-up, without the key name: the rules themselves. */
  rules: string[];
}

type EnvClass = new () => object;

function message(
  constraintCls: EnvClass,
  key: string,
  constraints: unknown[],
  envClass: EnvClass,
): string | null {
  const constraint = new constraintCls() as { defaultMessage?: (args: ValidationArguments) => string };
  if (typeof constraint.defaultMessage !== 'function') return null;
  const args: ValidationArguments = {
    property: key,
    constraints,
    value: undefined,
    targetName: envClass.name,
    object: {},
  };
  let text = constraint.defaultMessage(args);
  constraints.forEach((value, index) => {
    const shown = Array.isArray(value) ? value.join(', ') : String(value);
    text = text.split(`$constraint${index + 1}`).join(shown);
  });
  text = text.split('$property').join(key).split('$value').join('');
  // The messages start with the key, which the reference row already names.
  return text.startsWith(`${key} `) ? text.slice(key.length + 1) : text;
}

/**
 * The keys of an environment class with their type, default and rules, read from class-validator's
 * metadata and the class's own initialisers: the same source `validateEnv` checks against.
 */
export function describeEnvClass(envClass: EnvClass): EnvKeyReference[] {
  const storage = getMetadataStorage();
  const metadatas = storage.getTargetValidationMetadatas(envClass, '', true, false);
  const defaults = new envClass() as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(defaults), ...metadatas.map((m) => m.propertyName)])];
  return keys.map((key) => {
    // Decorators apply bottom-up; reversed, the rules read in the order they are written.
    const own = metadatas.filter((m) => m.propertyName === key).reverse();
    const rules = own.flatMap((m) => {
      if (m.type !== ValidationTypes.CUSTOM_VALIDATION || !m.constraintCls) return [];
      const text = message(m.constraintCls as EnvClass, key, (m.constraints ?? []) as unknown[], envClass);
      return text ? [text] : [];
    });
    const designType = Reflect.getMetadata('design:type', envClass.prototype, key) as
      { name: string } | undefined;
    // Environment values are strings; only numbers and booleans are converted (a union of literals is a string).
    const type =
      designType?.name === 'Number' ? 'number' : designType?.name === 'Boolean' ? 'boolean' : 'string';
    return {
      key,
      type,
      defaultValue: defaults[key],
      optional: own.some((m) => m.type === ValidationTypes.CONDITIONAL_VALIDATION),
      rules,
    };
  });
}
