import { Logger } from '@nestjs/common';
import { IsBoolean } from 'class-validator';
import { EnvBoolean, EnvSection, validateEnv } from '@app/config';
import type { LogBackendDefinition } from '../../log-backend';
import { MockLogSource } from './mock-log-source';

@EnvSection('tools', 'Log backend: mock (demo data)')
export class MockLogsEnv {
  /** Read here only to warn that MOCK logs are on outside the demo. */
  @EnvBoolean() @IsBoolean() DEMO_MODE: boolean = false;
}

/** LOG_BACKEND=mock: the generated demo dataset; outside DEMO_MODE start-up and the doctor warn. */
export const MOCK_LOG_BACKEND: LogBackendDefinition = {
  kind: 'mock',
  summary:
    'a generated demo dataset with a permanent HikariCP incident (`npm run demo` sets it); results are marked demo data',
  envClass: MockLogsEnv,
  configFix: 'set DEMO_MODE to true or false',
  results: { sourceKind: 'MOCK', realData: false },
  configure(source) {
    const outsideDemo = !validateEnv(MockLogsEnv, source).DEMO_MODE;
    return {
      kind: 'mock',
      replayNow: null,
      create: () => {
        if (outsideDemo) {
          new Logger('ToolsModule').warn(
            'LOG_BACKEND=mock outside DEMO_MODE: query_logs answers from generated sample logs, not your systems',
          );
        }
        return new MockLogSource();
      },
      doctorCheck: async () => [
        outsideDemo
          ? {
              check: 'logs',
              verdict: 'WARN',
              message: 'LOG_BACKEND=mock: query_logs reads a generated demo dataset, not your logs',
              fix: 'LOG_BACKEND=jsonl LOGS_JSONL_DIR=<your log directory>',
            }
          : { check: 'logs', verdict: 'OK', message: 'LOG_BACKEND=mock (demo)' },
      ],
    };
  },
};
