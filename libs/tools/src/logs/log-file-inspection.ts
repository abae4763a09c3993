import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  filesOfTopic,
  JsonlFieldNames,
  JsonlLogSourceConfig,
  readLine,
  UnreadableReason,
} from './jsonl-log-source';
import { LogEvent, LogTopic } from './log-source.port';

/** What one JSON-lines file holds as the FILE log source reads it. */
export interface LogFileReport {
  file: string;
  topic: LogTopic | null;
  lines: number;
  readable: number;
  unreadable: Record<UnreadableReason, number>;
  /** 1-based number of the first unreadable line, for the user to look at. */
  firstUnreadableLine: number | null;
  levels: Record<LogEvent['level'], number>;
  /** Lines whose level value is not one we know (read as INFO). */
  unknownLevels: number;
  /** Per role, which field names were read and how often. */
  fields: Record<keyof JsonlFieldNames, Record<string, number>>;
  from: string | null;
  to: string | null;
}

/** Reads a file line by line (at most `maxLines` non-empty lines when given) and counts what it understood. */
export async function inspectLogFile(
  path: string,
  fields: JsonlFieldNames,
  topic: LogTopic | null,
  maxLines?: number,
): Promise<LogFileReport> {
  const report: LogFileReport = {
    file: path,
    topic,
    lines: 0,
    readable: 0,
    unreadable: { NOT_JSON: 0, NO_TIMESTAMP: 0, NO_MESSAGE: 0 },
    firstUnreadableLine: null,
    levels: { ERROR: 0, WARN: 0, INFO: 0, DEBUG: 0 },
    unknownLevels: 0,
    fields: { timestamp: {}, level: {}, service: {}, message: {} },
    from: null,
    to: null,
  };
  let min = Infinity;
  let max = -Infinity;
  let number = 0;
  const stream = createReadStream(path, { encoding: 'utf8' });
  try {
    for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
      number += 1;
      if (line.trim() === '') continue;
      if (maxLines !== undefined && report.lines >= maxLines) break;
      report.lines += 1;
      const read = readLine(line, fields);
      if (typeof read === 'string') {
        report.unreadable[read] += 1;
        report.firstUnreadableLine ??= number;
        continue;
      }
      report.readable += 1;
      report.levels[read.level] += 1;
      if (read.unknownLevel) report.unknownLevels += 1;
      for (const role of ['timestamp', 'level', 'service', 'message'] as const) {
        const name = read.fieldsUsed[role];
        if (name !== null) report.fields[role][name] = (report.fields[role][name] ?? 0) + 1;
      }
      min = Math.min(min, read.at);
      max = Math.max(max, read.at);
    }
  } finally {
    stream.destroy();
  }
  if (report.readable > 0) {
    report.from = new Date(min).toISOString();
    report.to = new Date(max).toISOString();
  }
  return report;
}

/** Every configured topic's files, inspected (sampled when `maxLines` is given); topics without files listed. */
export async function inspectLogSource(
  config: Pick<JsonlLogSourceConfig, 'directory' | 'topics' | 'fields'>,
  maxLines?: number,
): Promise<{ reports: LogFileReport[]; topicsWithoutFiles: LogTopic[] }> {
  const reports: LogFileReport[] = [];
  const topicsWithoutFiles: LogTopic[] = [];
  for (const [topic, globs] of Object.entries(config.topics) as [LogTopic, string[]][]) {
    const files = await filesOfTopic(config.directory, globs);
    if (files.length === 0) topicsWithoutFiles.push(topic);
    for (const file of files) {
      reports.push(await inspectLogFile(join(config.directory, file), config.fields, topic, maxLines));
    }
  }
  return { reports, topicsWithoutFiles };
}

/** The warning a report deserves, or null: unreadable lines, or no readable line at all. */
export function logFileWarning(report: LogFileReport): string | null {
  const bad = report.lines - report.readable;
  if (report.lines === 0) return `log file ${report.file} (${report.topic ?? 'no topic'}) is empty`;
  if (bad === 0) return null;
  const reasons = Object.entries(report.unreadable)
    .filter(([, count]) => count > 0)
    .map(([reason, count]) => `${count} ${reason}`)
    .join(', ');
  return (
    `log file ${report.file} (${report.topic ?? 'no topic'}): ${bad} of ${report.lines} lines read could not be used ` +
    `(${reasons}; first at line ${report.firstUnreadableLine}); query_logs skips them. ` +
    'Check the LOGS_JSONL_*_FIELD settings or run `npm run logs-check -- <dir>`'
  );
}
