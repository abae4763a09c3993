import { AgentResult } from '../evidence/canonical-invocation';

export function byteLength(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/**
 * Enforces the agent_result byte cap without breaking its structure: drops trailing items of the
 * longest top-level list (evidence, patterns, events, rows) until it fits, sets `truncated`, and keeps
 * `returned_count` equal to the length of `countedList`. Returns null when even empty lists do not fit.
 */
export function fitAgentResult(
  result: AgentResult,
  maxBytes: number,
  countedList?: string,
): AgentResult | null {
  if (byteLength(result) <= maxBytes) return result;
  const fitted: AgentResult = { ...result, truncated: true };
  const lists = Object.keys(fitted).filter((key) => Array.isArray(fitted[key]));
  for (const key of lists) fitted[key] = [...(fitted[key] as unknown[])];
  const syncCount = () => {
    if (countedList && Array.isArray(fitted[countedList]) && 'returned_count' in fitted) {
      fitted.returned_count = (fitted[countedList] as unknown[]).length;
    }
  };
  while (byteLength(fitted) > maxBytes) {
    const longest = lists
      .map((key) => fitted[key] as unknown[])
      .filter((items) => items.length > 0)
      .sort((a, b) => b.length - a.length)[0];
    if (!longest) return null;
    longest.pop();
    syncCount();
  }
  return fitted;
}
