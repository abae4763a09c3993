import type { z } from 'zod';
import type { EvidenceSourceType } from '@app/contracts';
import type { AgentResult } from '../evidence/canonical-invocation';
import type { RunContext } from '../run/run-context';

/** What a projector makes of a raw tool response: the bounded agent-facing body and its evidence status. */
export interface ToolProjection {
  evidenceStatus: 'EVIDENCE_FOUND' | 'NO_EVIDENCE';
  /** Tool-specific fields of the agent result (the Harness adds evidence_status, tool_call_id, truncated). */
  result: Record<string, unknown>;
  truncated: boolean;
}

export type ArgSummary = Record<string, string | number | boolean>;

/** How one verified result reads as a report reference / SemanticGuard evidence item: no ids, exact values. */
export interface EvidenceView {
  /** One of the wire contract's kinds: the web UI renders each kind, never a tool name. */
  source_type: EvidenceSourceType;
  source: string;
  scope: string;
  /** Exact excerpts / patterns / rows from the agent_result (never the raw response). */
  values: unknown;
  /** Generated demo data (never live production data): the release states it (wire `Reference.demo`). */
  demo: boolean;
}

/**
 * What a READY result could not read inside its own scope (unreadable lines, unreadable files): a typed
 * flag the release turns into a stated limitation, so an absence over that scope is never released as
 * complete.
 */
export interface EvidenceGap {
  unreadable_lines: number;
  unreadable_files: number;
}

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
  /**
   * Every ToolFailure code this tool may throw (its `*.codes.ts` list): the agent sees only these; a
   * failure with any other code is recorded as TOOL_FAILED, never passed on (fail closed).
   */
  failureCodes: readonly string[];
  execute(args: Args, signal: AbortSignal, ctx: RunContext): Promise<Raw>;
  project(raw: Raw, args: Args): ToolProjection;
  /** Redacted, bounded argument summary for the durable tool_invocation row (no SQL or query text). */
  summarizeArgs(args: Args): ArgSummary;
  /** What status texts call this tool, e.g. '日志 / logs'. */
  label: string;
  /**
   * The one argument value a status text may name next to the label (a log topic, a configured data
   * source), only when it belongs to a closed set; free text (queries, SQL) never. `args` is unvalidated.
   */
  statusDetail?(args: unknown): string | undefined;
  /** How this tool's READY agent_result becomes a report reference and a SemanticGuard evidence item. */
  evidenceOf(result: AgentResult): EvidenceView;
  /** The gap a READY result declares in its scope, or null when it read everything (tools that cannot have one omit this). */
  gapOf?(result: AgentResult): EvidenceGap | null;
}

/** Any tool, as the catalog, the agent and the guards hold it. */
export type AnyHarnessTool = HarnessToolDefinition<Record<string, unknown>, unknown>;

/**
 * A known, safe failure of a tool: its code and message may be shown to the agent. `Code` is the tool's
 * own closed union (`query-mysql.codes.ts`, ...); there is no `string` default, so a thrower names it.
 */
export class ToolFailure<Code extends string> extends Error {
  constructor(
    readonly code: Code,
    readonly safeMessage: string,
  ) {
    super(`${code}: ${safeMessage}`);
    this.name = 'ToolFailure';
  }
}
