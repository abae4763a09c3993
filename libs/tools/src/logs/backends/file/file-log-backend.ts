import { Logger } from '@nestjs/common';
import { FileLogSource, rawBytesOf } from '../../file-log-source';
import type { LogBackendDefinition } from '../../log-backend';
import { describeLogFile, inspectLogDirectory, logFileWarning } from '../../log-file-inspection';
import type { LogDirectoryConfig } from '../../log-files';
import { LogScanPool } from '../../log-scan-pool';
import { checkLogDirectory } from './file-log-backend.doctor';
import { FileLogsEnv, readFileLogsConfig } from './file-logs.env';

const STARTUP_SAMPLE_LINES = 200;

/**
 * Samples every file of the logs directory at start-up: one line per file (format, topic, services,
 * time range, unreadable share), a warning naming each file that cannot be read (path, reason) or holds
 * unreadable lines, so an export in an unexpected format never only answers "nothing in the logs".
 */
async function describeLogFiles(config: LogDirectoryConfig & { maxLineBytes: number }): Promise<void> {
  const logger = new Logger('FileLogSource');
  try {
    const { reports, problems } = await inspectLogDirectory(
      config,
      STARTUP_SAMPLE_LINES,
      config.maxLineBytes,
    );
    if (reports.length === 0)
      logger.warn(`no readable log file in ${config.directory}: query_logs finds nothing`);
    for (const report of reports) {
      logger.log(describeLogFile(report));
      const warning = logFileWarning(report);
      if (warning) logger.warn(warning);
    }
    for (const problem of problems) {
      logger.warn(`log file ${problem.file} in ${config.directory} is not searched: ${problem.reason}`);
    }
  } catch (error) {
    logger.warn(
      `could not list the log files in ${config.directory}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

/** LOG_BACKEND=jsonl (the name is historical): every file of a logs directory, each in its own format. */
export const FILE_LOG_BACKEND: LogBackendDefinition = {
  kind: 'jsonl',
  summary:
    'the files of `LOGS_JSONL_DIR`, each read in its own format (JSON lines, logfmt, access logs, logback, syslog), streamed line by line ([logs.md](logs.md))',
  envClass: FileLogsEnv,
  configFix: 'set LOGS_JSONL_DIR to the directory of your JSON-lines files',
  results: { sourceKind: 'FILE', realData: true },
  configure(source) {
    const config = readFileLogsConfig(source);
    return {
      kind: 'jsonl',
      replayNow: config.now,
      create: (deps) => {
        void describeLogFiles(config);
        return new FileLogSource(
          { ...config, maxRawBytes: rawBytesOf(deps.evidence) },
          new LogScanPool(config.scanWorkers),
        );
      },
      doctorCheck: () => checkLogDirectory(config),
    };
  },
};
