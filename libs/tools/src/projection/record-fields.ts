type Fields = Record<string, unknown>;

/** An object's fields, or none: agent results and unvalidated tool-call arguments are read defensively. */
export const asRecord = (value: unknown): Fields =>
  typeof value === 'object' && value !== null ? (value as Fields) : {};

export const argOf = (args: unknown, key: string): unknown => asRecord(args)[key];
