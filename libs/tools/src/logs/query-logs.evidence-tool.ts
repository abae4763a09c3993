import type { EvidenceToolDefinition } from '../evidence-tool';
import { LOG_TOPICS } from './log-source.port';
import { queryLogsConfig } from './query-logs.config';
import { queryLogsTool } from './query-logs.tool';

export const QUERY_LOGS_EVIDENCE_TOOL: EvidenceToolDefinition = {
  name: 'query_logs',
  summary: 'searches the logs of the LOG_BACKEND in a time window; absent with LOG_BACKEND=none',
  config: queryLogsConfig,
  create(deps) {
    if (!deps.logs) return null;
    const replayNow = deps.logBackend.replayNow;
    return queryLogsTool(
      deps.logs,
      deps.limitsOf(queryLogsConfig),
      replayNow ? () => replayNow : undefined,
      LOG_TOPICS,
    );
  },
};
