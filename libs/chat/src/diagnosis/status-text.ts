import { LOG_TOPICS } from '@app/tools';

/**
 * Status texts of a diagnosis, built by code from structured facts only: which tools the agent called
 * and, where an argument is one of a closed set (log topic, configured data source id), which one.
 * Model prose, free-text arguments (search queries, SQL) and unknown tool names never reach a status.
 */
export interface ToolCallFacts {
  name: string;
  args?: unknown;
}

/** The closed sets an argument must belong to before it may be named in a status. */
export interface StatusVocabulary {
  dataSources: ReadonlySet<string>;
}

export const PLANNING_STATUS =
  '正在规划排查：决定要查询哪些证据 / planning the investigation: which evidence to query';

const OTHER_TOOL = '其他工具 / another tool';

const argOf = (args: unknown, key: string): unknown =>
  typeof args === 'object' && args !== null ? (args as Record<string, unknown>)[key] : undefined;

function labelOf(call: ToolCallFacts, vocabulary: StatusVocabulary): string {
  switch (call.name) {
    case 'lookup_knowledge':
      return '知识库 / knowledge base';
    case 'query_logs': {
      const topic = argOf(call.args, 'topic');
      return (LOG_TOPICS as readonly unknown[]).includes(topic)
        ? `日志 / logs (${String(topic)})`
        : '日志 / logs';
    }
    case 'query_mysql': {
      const source = argOf(call.args, 'data_source');
      return typeof source === 'string' && vocabulary.dataSources.has(source)
        ? `业务数据库 / business database (${source})`
        : '业务数据库 / business database';
    }
    default:
      return OTHER_TOOL;
  }
}

const labels = (calls: readonly ToolCallFacts[], vocabulary: StatusVocabulary) =>
  [...new Set(calls.map((call) => labelOf(call, vocabulary)))].join(', ');

/** The plan shown once, from the agent's first tool calls; null when it called none. */
export function planStatus(calls: readonly ToolCallFacts[], vocabulary: StatusVocabulary): string | null {
  return calls.length > 0 ? `排查计划：先查询 / plan: first query ${labels(calls, vocabulary)}` : null;
}

/** What is being queried right now; null when the model step called no tool. */
export function toolRunningStatus(
  calls: readonly ToolCallFacts[],
  vocabulary: StatusVocabulary,
): string | null {
  return calls.length > 0 ? `正在查询 / querying: ${labels(calls, vocabulary)}` : null;
}

export function toolDoneStatus(results: number): string {
  return `已获得 ${results} 个工具结果，正在分析 / ${results} tool result(s) received, analysing`;
}
