import type { AnyHarnessTool } from '@app/harness';

/**
 * Status texts of a diagnosis, built by code from structured facts only: which tools the agent called
 * and, where the tool names a closed-set argument (log topic, configured data source id), which one.
 * Model prose, free-text arguments (search queries, SQL) and unknown tool names never reach a status.
 */
export interface ToolCallFacts {
  name: string;
  args?: unknown;
}

/** What a status needs to know about a tool; the tool's own definition answers it. */
export type ToolStatusFacts = Pick<AnyHarnessTool, 'label' | 'statusDetail'>;
export type ToolLookup = (name: string) => ToolStatusFacts | undefined;

export const PLANNING_STATUS =
  '正在规划排查：决定要查询哪些证据 / planning the investigation: which evidence to query';

const OTHER_TOOL = '其他工具 / another tool';

function labelOf(call: ToolCallFacts, lookup: ToolLookup): string {
  const tool = lookup(call.name);
  if (!tool) return OTHER_TOOL;
  const detail = tool.statusDetail?.(call.args);
  return detail === undefined ? tool.label : `${tool.label} (${detail})`;
}

const labels = (calls: readonly ToolCallFacts[], lookup: ToolLookup) =>
  [...new Set(calls.map((call) => labelOf(call, lookup)))].join(', ');

/** The plan shown once, from the agent's first tool calls; null when it called none. */
export function planStatus(calls: readonly ToolCallFacts[], lookup: ToolLookup): string | null {
  return calls.length > 0 ? `排查计划：先查询 / plan: first query ${labels(calls, lookup)}` : null;
}

/** What is being queried right now; null when the model step called no tool. */
export function toolRunningStatus(calls: readonly ToolCallFacts[], lookup: ToolLookup): string | null {
  return calls.length > 0 ? `正在查询 / querying: ${labels(calls, lookup)}` : null;
}

export function toolDoneStatus(results: number): string {
  return `已获得 ${results} 个工具结果，正在分析 / ${results} tool result(s) received, analysing`;
}
