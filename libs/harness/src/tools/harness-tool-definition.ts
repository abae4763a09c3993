import type { z } from 'zod';
import type { RunContext } from '../run/run-context';

/** What a projector makes of a raw tool response: the bounded agent-facing body and its evidence status. */
export interface ToolProjection {
  evidenceStatus: 'EVIDENCE_FOUND' | 'NO_EVIDENCE';
  /** Tool-specific fields of the agent result (the Harness adds evidence_status, tool_call_id, truncated). */
  result: Record<string, unknown>;
  truncated: boolean;
}

export type ArgSummary = Record<string, string | number | boolean>;

/**
 * One agent-facing evidence tool as the Harness runs it. `execute` talks to the data source and must
 * honour `signal`; `project` is deterministic code (no LLM) and is the only thing the agent ever sees.
 */
export interface HarnessToolDefinition<
  Args extends Record<string, unknown> = Record<string, unknown>,
  Raw = unknown,
> {
  name: string;
  description: string;
  schema: z.ZodType<Args>;
  /** The result list that `returned_count` counts (kept in sync if the byte cap cuts it). */
  countedList?: string;
  /** Only read-only tools may run; the boundary refuses anything else. */
  readOnly: true;
  execute(args: Args, signal: AbortSignal, ctx: RunContext): Promise<Raw>;
  project(raw: Raw, args: Args): ToolProjection;
  /** Redacted, bounded argument summary for the durable tool_invocation row (no SQL or query text). */
  summarizeArgs(args: Args): ArgSummary;
}

/** A known, safe failure of a tool: its code and message may be shown to the agent. */
export class ToolFailure extends Error {
  constructor(
    readonly code: string,
    readonly safeMessage: string,
  ) {
    super(`${code}: ${safeMessage}`);
    this.name = 'ToolFailure';
  }
}
