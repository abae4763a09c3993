import { LogRecord, RecordReader, UnreadableReason } from './formats';
import { LogDirectoryConfig, LogFilePlan, LogFileProblem, planLogDirectory } from './log-files';
import { DEFAULT_MAX_LINE_BYTES, readLineChunks, lineBounds } from './log-line-reader';
import { LogEvent, LogTopic } from './log-source.port';

/** What one file holds as the FILE log source reads it (logs-check, doctor and the start-up log list it). */
export interface LogFileReport {
  file: string;
  format: string;
  formatFrom: LogFilePlan['formatFrom'];
  topic: LogTopic;
  topicFrom: LogFilePlan['topicFrom'];
  timeZone: string;
  /** Non-empty lines read, records read from them, and lines joined to a record (stack traces). */
  lines: number;
  records: number;
  joined: number;
  unreadable: Partial<Record<UnreadableReason, number>>;
  unreadableLines: number;
  /** 1-based number of the first unreadable line, for the user to look at. */
  firstUnreadableLine: number | null;
  levels: Record<LogEvent['level'], number>;
  /** Records whose level was inferred (stream, status, a level word) or defaulted to INFO. */
  levelsInferred: number;
  levelsDefaulted: number;
  /** Records whose level value was written but is not one we know (read as INFO). */
  unknownLevels: number;
  /** Records per service (the record's, else the file's fallback, else `unknown`), the 10 largest. */
  services: Record<string, number>;
  from: string | null;
  to: string | null;
  /** True when only the first `maxLines` lines were read. */
  sampled: boolean;
}

/**
 * Reads a planned file (at most `maxLines` non-empty lines when given) and counts what it understood;
 * lines over `maxLineBytes` are skipped and counted unreadable (LINE_TOO_LONG), never read whole.
 */
export async function inspectLogFile(
  plan: LogFilePlan,
  maxLines?: number,
  maxLineBytes = DEFAULT_MAX_LINE_BYTES,
): Promise<LogFileReport> {
  const report: LogFileReport = {
    file: plan.file,
    format: plan.format.id,
    formatFrom: plan.formatFrom,
    topic: plan.topic,
    topicFrom: plan.topicFrom,
    timeZone: plan.context.timeZone,
    lines: 0,
    records: 0,
    joined: 0,
    unreadable: {},
    unreadableLines: 0,
    firstUnreadableLine: null,
    levels: { ERROR: 0, WARN: 0, INFO: 0, DEBUG: 0 },
    levelsInferred: 0,
    levelsDefaulted: 0,
    unknownLevels: 0,
    services: {},
    from: null,
    to: null,
    sampled: false,
  };
  let min = Infinity;
  let max = -Infinity;
  const services = new Map<string, number>();
  const take = (record: LogRecord) => {
    report.records += 1;
    report.levels[record.level] += 1;
    if (record.levelFrom === 'INFERRED') report.levelsInferred += 1;
    if (record.levelFrom === 'DEFAULT') report.levelsDefaulted += 1;
    if (record.unknownLevel) report.unknownLevels += 1;
    const service = record.service ?? plan.service ?? 'unknown';
    services.set(service, (services.get(service) ?? 0) + 1);
    min = Math.min(min, record.at);
    max = Math.max(max, record.at);
  };
  const reader = new RecordReader(plan.format, plan.context);
  let number = 0;
  const unreadable = (reason: UnreadableReason) => {
    report.unreadable[reason] = (report.unreadable[reason] ?? 0) + 1;
    report.unreadableLines += 1;
    report.firstUnreadableLine ??= number;
  };
  const read = (line: string): boolean => {
    number += 1;
    if (line.trim() === '') return true;
    if (maxLines !== undefined && report.lines >= maxLines) {
      report.sampled = true;
      return false;
    }
    report.lines += 1;
    for (const step of reader.push(line)) {
      if (step.kind === 'record') take(step.record);
      else if (step.kind === 'joined') report.joined += 1;
      else unreadable(step.reason);
    }
    return true;
  };
  reading: for await (const chunk of readLineChunks(plan.path, { maxLineBytes })) {
    if (chunk.kind === 'long') {
      if (maxLines !== undefined && report.lines >= maxLines) {
        report.sampled = true;
        break;
      }
      number += 1;
      report.lines += 1;
      unreadable('LINE_TOO_LONG');
      continue;
    }
    for (const [start, end] of lineBounds(chunk.bytes, chunk.start, chunk.end)) {
      if (!read(chunk.bytes.toString('utf8', start, end))) break reading;
    }
  }
  for (const step of reader.end()) if (step.kind === 'record') take(step.record);
  report.services = Object.fromEntries([...services].sort((a, b) => b[1] - a[1]).slice(0, 10));
  if (report.records > 0) {
    report.from = new Date(min).toISOString();
    report.to = new Date(max).toISOString();
  }
  return report;
}

/** Every file of the logs directory inspected (sampled when `maxLines` is given), with the files it cannot read. */
export async function inspectLogDirectory(
  config: LogDirectoryConfig,
  maxLines?: number,
  maxLineBytes = DEFAULT_MAX_LINE_BYTES,
): Promise<{ reports: LogFileReport[]; problems: LogFileProblem[] }> {
  const { plans, problems } = await planLogDirectory(config);
  const reports: LogFileReport[] = [];
  for (const plan of plans) {
    try {
      reports.push(await inspectLogFile(plan, maxLines, maxLineBytes));
    } catch (error) {
      problems.push({
        file: plan.file,
        reason: `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      });
    }
  }
  return { reports, problems };
}

/** The unreadable share of a file's lines, as a percentage with one decimal. */
export function unreadableShare(report: LogFileReport): string {
  if (report.lines === 0) return '0%';
  return `${Math.round((report.unreadableLines / report.lines) * 1000) / 10}%`;
}

/** One line per file: format, topic, services, time range, unreadable share. */
export function describeLogFile(report: LogFileReport): string {
  const services = Object.keys(report.services).join(', ') || '-';
  return (
    `${report.file}: ${report.format}${report.formatFrom === 'RULE' ? ' (rule)' : ''}, topic ${report.topic}` +
    `${report.topicFrom === 'RULE' ? ' (rule)' : ''}, services ${services}, ` +
    `${report.from ?? '-'} .. ${report.to ?? '-'} (zone-less times read as ${report.timeZone}), ` +
    `${report.records} records from ${report.lines}${report.sampled ? ' sampled' : ''} lines, unreadable ${report.unreadableLines} (${unreadableShare(report)})`
  );
}

/** The warning a report deserves, or null: unreadable lines, or no readable record at all. */
export function logFileWarning(report: LogFileReport): string | null {
  if (report.unreadableLines === 0 && report.records > 0) return null;
  const reasons = Object.entries(report.unreadable)
    .map(([reason, count]) => `${count} ${reason}`)
    .join(', ');
  return (
    `log file ${report.file} (${report.format}, ${report.topic}): ${report.unreadableLines} of ${report.lines} lines read could not be used ` +
    `(${reasons || 'no record'}${report.firstUnreadableLine ? `; first at line ${report.firstUnreadableLine}` : ''}); ` +
    'query_logs counts them as unread and the report states it. Check LOGS_FILE_RULES or run `npm run logs-check -- <dir>`'
  );
}
