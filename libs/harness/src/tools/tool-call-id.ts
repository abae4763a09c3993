const TOOL_CALL_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
const MAX_TOOL_CALL_ID = 128;

/** The framework's tool_call_id is used as is, but only when it is non-empty, ≤128 chars and [A-Za-z0-9_.:-]. */
export function isValidToolCallId(id: unknown): id is string {
  return typeof id === 'string' && TOOL_CALL_ID.test(id);
}

/** One id of a model reply that was already used in the run, and the run-unique form it was given. */
export interface ToolCallIdRewrite {
  index: number;
  providerId: string;
  id: string;
}

/**
 * Run-unique ids for the tool calls of one model reply (docs/architecture.md "Tool call identity").
 * Providers that number ids per response (`call_0` in every turn) or repeat one inside a turn would
 * otherwise get a later call refused as a duplicate, or make us answer one id twice, which strict
 * providers reject. A valid id already used (earlier in the run or earlier in this reply) gets the first
 * free `<id>.<n>` (n = 2, 3, …; the id cut to leave room), deterministic from the run's history; every
 * other id, malformed ones included (the boundary refuses those), stays exactly as the provider sent it.
 */
export function runUniqueToolCallIds(
  usedIds: Iterable<string>,
  replyIds: readonly (string | undefined)[],
): ToolCallIdRewrite[] {
  const used = new Set(usedIds);
  const rewrites: ToolCallIdRewrite[] = [];
  replyIds.forEach((providerId, index) => {
    if (!isValidToolCallId(providerId)) return;
    if (!used.has(providerId)) {
      used.add(providerId);
      return;
    }
    let id = providerId;
    for (let n = 2; used.has(id); n += 1) {
      const suffix = `.${n}`;
      id = providerId.slice(0, MAX_TOOL_CALL_ID - suffix.length) + suffix;
    }
    used.add(id);
    rewrites.push({ index, providerId, id });
  });
  return rewrites;
}
