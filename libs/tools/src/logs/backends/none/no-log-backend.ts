import type { LogBackendDefinition } from '../../log-backend';

/** LOG_BACKEND=none: no query_logs at all (not offered to the model, its prompt lines dropped). */
export const NO_LOG_BACKEND: LogBackendDefinition = {
  kind: 'none',
  summary:
    'no log tool: `query_logs` is not offered to the model, its prompt lines are dropped and no report can cite logs',
  envClass: null,
  configFix: 'set LOG_BACKEND',
  results: null,
  configure: () => ({
    kind: 'none',
    replayNow: null,
    create: () => null,
    doctorCheck: async () => [
      {
        check: 'logs',
        verdict: 'WARN',
        message: 'LOG_BACKEND=none: diagnoses run without logs',
        fix: 'LOG_BACKEND=jsonl LOGS_JSONL_DIR=<your log directory>',
      },
    ],
  }),
};
