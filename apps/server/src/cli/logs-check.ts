import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { validateEnv } from '@app/config';
import {
  inspectLogDirectory,
  LogFileReport,
  logFileWarning,
  FileLogsEnv,
  logRulesOf,
  unreadableShare,
} from '@app/tools';

/**
 * `npm run logs-check -- <dir>`: what the FILE log source understands of every file in `dir`, with the
 * same rules (LOGS_FILE_RULES, LOGS_JSONL_TOPICS) and zone (LOGS_TIME_ZONE) the server uses.
 * Exit: 0 every file is fully readable, 1 some lines or files are not, 2 usage or config error.
 */
function describe(report: LogFileReport): string {
  const levels = Object.entries(report.levels)
    .map(([level, count]) => `${level} ${count}`)
    .join(', ');
  const services = Object.entries(report.services)
    .map(([service, count]) => `${service} (${count})`)
    .join(', ');
  const reasons = Object.entries(report.unreadable)
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ');
  const levelNotes = [
    report.levelsInferred > 0 ? `${report.levelsInferred} inferred from stream/status/text` : '',
    report.levelsDefaulted > 0 ? `${report.levelsDefaulted} without a level read as INFO` : '',
    report.unknownLevels > 0 ? `${report.unknownLevels} unknown level values read as INFO` : '',
  ].filter(Boolean);
  return [
    `${report.file}  format: ${report.format}${report.formatFrom === 'RULE' ? ' (LOGS_FILE_RULES)' : ' (detected)'}  topic: ${report.topic} (${report.topicFrom === 'RULE' ? 'rule' : report.topicFrom === 'FORMAT' ? 'format' : 'file name'})`,
    `  lines: ${report.lines}, records: ${report.records}, joined to a record: ${report.joined}, unreadable: ${report.unreadableLines} (${unreadableShare(report)})` +
      (report.unreadableLines > 0 ? ` [${reasons}; first at line ${report.firstUnreadableLine}]` : ''),
    `  time range: ${report.from ?? '-'} .. ${report.to ?? '-'} (times without zone read as ${report.timeZone})`,
    `  levels: ${levels}${levelNotes.length > 0 ? ` (${levelNotes.join('; ')})` : ''}`,
    `  services: ${services || '-'}`,
  ].join('\n');
}

async function main(): Promise<number> {
  const dir = process.argv[2];
  if (!dir || process.argv.length > 3) {
    process.stderr.write('usage: npm run logs-check -- <dir>\n');
    return 2;
  }
  const directory = resolve(dir);
  try {
    if (!statSync(directory).isDirectory()) throw new Error('not a directory');
  } catch {
    process.stderr.write(`logs-check: ${directory} is not a readable directory\n`);
    return 2;
  }
  let env: FileLogsEnv;
  try {
    env = validateEnv(FileLogsEnv);
  } catch (error) {
    process.stderr.write(`logs-check: ${(error as Error).message}\n`);
    return 2;
  }
  const { rules, problems: configProblems } = logRulesOf(env);
  if (configProblems.length > 0) {
    process.stderr.write(`logs-check: ${configProblems.join('; ')}\n`);
    return 2;
  }
  const { reports, problems } = await inspectLogDirectory({ directory, rules, timeZone: env.LOGS_TIME_ZONE });
  let bad = problems.length;
  for (const report of reports) {
    process.stdout.write(`${describe(report)}\n`);
    if (logFileWarning(report)) bad += 1;
  }
  for (const problem of problems) {
    process.stdout.write(`${problem.file}  NOT READ: ${problem.reason}\n`);
  }
  if (reports.length === 0 && problems.length === 0) process.stdout.write(`${directory} holds no files\n`);
  return bad > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`logs-check failed: ${(error as Error).message}\n`);
    process.exit(2);
  },
);
