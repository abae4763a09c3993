import { ConfigValidationError, validateEnv } from '@app/config';
import { configProblemsOf, DoctorFinding } from '../doctor-finding';

export type EnvSource = Record<string, string | undefined>;

/**
 * One backend of a port as its registry lists it: the value that selects it, its own keys (an
 * `@EnvSection` class, in the configuration reference), and its settings read from the environment.
 * Adding a backend is its folder plus one line in the port's registry.
 */
export interface BackendDefinition<Configured> {
  /** The selector's value (LOG_BACKEND=..., KNOWLEDGE_BACKEND=...). */
  readonly kind: string;
  /** What it reads, one sentence: its line in the generated docs/backends.md. */
  readonly summary: string;
  /** The keys it owns; checked one by one whichever backend is selected, so a bad value never waits. */
  readonly envClass: (new () => object) | null;
  /** What `npm run doctor` advises when its keys are wrong. */
  readonly configFix: string;
  /** Its settings, cross-key relations included; throws ConfigValidationError naming the keys. */
  configure(source: EnvSource): Configured;
}

export function kindsOf(definitions: readonly BackendDefinition<unknown>[]): string[] {
  return definitions.map((definition) => definition.kind);
}

/** The selected definition; the selector's own `@IsIn` rule has already refused an unknown kind. */
export function definitionOf<D extends BackendDefinition<unknown>>(
  definitions: readonly D[],
  selectorKey: string,
  kind: string,
): D {
  const definition = definitions.find((candidate) => candidate.kind === kind);
  if (!definition) {
    throw new ConfigValidationError([
      `${selectorKey} must be one of the following values: ${kindsOf(definitions).join(', ')}`,
    ]);
  }
  return definition;
}

/**
 * Configures the selected backend, and checks every other registered backend's own keys as single keys
 * (a typo in PYRAG_TIMEOUT_MS stops start-up whichever backend runs); every problem is reported at once.
 */
export function configureSelected<C>(
  definitions: readonly BackendDefinition<C>[],
  selected: BackendDefinition<C>,
  source: EnvSource,
): C {
  const problems: string[] = [];
  let configured: { value: C } | null = null;
  for (const definition of definitions) {
    try {
      if (definition === selected) configured = { value: definition.configure(source) };
      else if (definition.envClass) validateEnv(definition.envClass, source);
    } catch (error) {
      if (!(error instanceof ConfigValidationError)) throw error;
      problems.push(...error.problems);
    }
  }
  if (problems.length > 0 || configured === null) throw new ConfigValidationError(problems);
  return configured.value;
}

/**
 * For `npm run doctor`: the selected backend configured, or its one FAIL line naming the keys and what
 * to fix (other backends' keys are the `configuration` check's).
 */
export function configureForDoctor<C>(
  check: string,
  selectorKey: string,
  select: () => BackendDefinition<C>,
  source: EnvSource,
): { backend: C } | { failure: DoctorFinding } {
  const failure = (error: unknown, fix: string) => ({
    failure: { check, verdict: 'FAIL' as const, message: configProblemsOf(error).join('; '), fix },
  });
  let definition: BackendDefinition<C>;
  try {
    definition = select();
  } catch (error) {
    return failure(error, `set ${selectorKey}`);
  }
  try {
    return { backend: definition.configure(source) };
  } catch (error) {
    return failure(error, definition.configFix);
  }
}
