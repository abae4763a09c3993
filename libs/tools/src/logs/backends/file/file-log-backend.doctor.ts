import type { DoctorFinding } from '../../../doctor-finding';
import type { LogDirectoryConfig } from '../../log-files';
import { describeLogFile, inspectLogDirectory, logFileWarning } from '../../log-file-inspection';

/** Lines read per log file: enough to see a format problem, bounded for large exports. */
const LOG_SAMPLE_LINES = 2000;

/** `npm run doctor` for LOG_BACKEND=jsonl: files found per topic and readable in their format. */
export async function checkLogDirectory(config: LogDirectoryConfig): Promise<DoctorFinding[]> {
  const check = 'logs';
  const directory = config.directory;
  let inspected: Awaited<ReturnType<typeof inspectLogDirectory>>;
  try {
    inspected = await inspectLogDirectory(config, LOG_SAMPLE_LINES);
  } catch (error) {
    return [
      {
        check,
        verdict: 'FAIL',
        message: `${directory} cannot be listed (${(error as NodeJS.ErrnoException).code ?? 'error'}): query_logs would fail`,
        fix: 'give the service user read access to the logs directory',
      },
    ];
  }
  const { reports, problems } = inspected;
  const findings: DoctorFinding[] = [];
  if (reports.length === 0) {
    findings.push({
      check,
      verdict: 'FAIL',
      message: `no readable log file in ${directory}: query_logs would find nothing`,
      fix: `put the log files there, or run \`npm run logs-check -- ${directory}\``,
    });
  }
  for (const problem of problems) {
    findings.push({
      check,
      verdict: 'WARN',
      message: `${problem.file}: not searched (${problem.reason})`,
      fix: 'fix its permissions or format (LOGS_FILE_RULES format=...), or remove it',
    });
  }
  for (const report of reports) {
    if (report.records === 0) {
      findings.push({
        check,
        verdict: 'FAIL',
        message: `${report.file} (${report.format}, ${report.topic}): none of the ${report.lines} lines read could be used`,
        fix: `run \`npm run logs-check -- ${directory}\` and set LOGS_FILE_RULES for it, or remove the file`,
      });
      continue;
    }
    const warning = logFileWarning(report);
    findings.push(
      warning
        ? { check, verdict: 'WARN', message: warning, fix: `npm run logs-check -- ${directory}` }
        : { check, verdict: 'OK', message: describeLogFile(report) },
    );
  }
  return findings;
}
