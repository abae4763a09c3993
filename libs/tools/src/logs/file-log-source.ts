import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { ToolFailure } from '@app/harness';
import { LogRecord, RecordReader } from './formats';
import { LogDirectoryConfig, LogFilePlan, LogFileProblem, planLogDirectory, reasonOf } from './log-files';
import { LogQueryTerms, LogFilters, matchesLogQuery, parseLogQuery } from './log-match';
import { LogEvent, LogFileCoverage, LogQuery, LogRawResponse, LogSourcePort } from './log-source.port';
import type { QueryLogsFailureCode } from './query-logs.codes';

export interface FileLogSourceConfig extends LogDirectoryConfig {
  /** More matching events than this in one query is a Tool ERROR asking for a narrower query. */
  maxMatches: number;
}

type Match = LogEvent & { at: number };

/** One file's search: its matches, its time range, and unreadable lines counted at the records around them. */
export async function searchFile(
  plan: LogFilePlan,
  window: { from: number; to: number },
  terms: LogQueryTerms,
  filters: LogFilters,
  onMatch: (match: Match) => void,
  signal: AbortSignal,
): Promise<LogFileCoverage> {
  const reader = new RecordReader(plan.format, plan.context);
  let min = Infinity;
  let max = -Infinity;
  let unreadable = 0;
  // Unreadable lines before the first record are counted at that record's time.
  let leading = 0;
  const inWindow = (at: number) => at >= window.from && at <= window.to;
  const take = (record: LogRecord) => {
    min = Math.min(min, record.at);
    max = Math.max(max, record.at);
    if (leading > 0) {
      if (inWindow(record.at)) unreadable += leading;
      leading = 0;
    }
    if (!inWindow(record.at)) return;
    const service = record.service ?? plan.service ?? 'unknown';
    const event = { service, level: record.level, message: record.message, fields: record.fields };
    if (!matchesLogQuery(event, terms, filters)) return;
    onMatch({
      at: record.at,
      timestamp: new Date(record.at).toISOString(),
      level: record.level,
      service,
      message: record.message,
    });
  };
  const stream = createReadStream(plan.path, { encoding: 'utf8' });
  const stop = () => stream.destroy();
  signal.addEventListener('abort', stop, { once: true });
  try {
    for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
      if (line.trim() === '') continue;
      for (const step of reader.push(line)) {
        if (step.kind === 'record') take(step.record);
        else if (step.kind === 'unreadable') {
          const at = reader.lastAt;
          if (Number.isNaN(at)) leading += 1;
          else if (inWindow(at)) unreadable += 1;
        }
      }
    }
    for (const step of reader.end()) if (step.kind === 'record') take(step.record);
  } finally {
    signal.removeEventListener('abort', stop);
    stream.destroy();
  }
  signal.throwIfAborted();
  // Unreadable lines with no readable record at all: the whole file is unread, and it may cover the window.
  if (leading > 0) unreadable += leading;
  return {
    file: plan.file,
    format: plan.format.id,
    from: Number.isFinite(min) ? new Date(min).toISOString() : null,
    to: Number.isFinite(max) ? new Date(max).toISOString() : null,
    unreadable_lines: unreadable,
  };
}

/**
 * The FILE log source: every file of one directory, each read with its own format (detected, or named by
 * a rule) and topic. Files are streamed line by line (never read whole), so a gigabyte file costs memory
 * only for its matches. A file that cannot be read fails only itself: it is named with its reason in the
 * result and the readable files are still searched.
 */
export class FileLogSource extends LogSourcePort {
  constructor(private readonly config: FileLogSourceConfig) {
    super();
  }

  async search(query: LogQuery, signal: AbortSignal): Promise<LogRawResponse> {
    let planned: { plans: LogFilePlan[]; problems: LogFileProblem[] };
    try {
      planned = await planLogDirectory(this.config);
    } catch (error) {
      throw new ToolFailure<QueryLogsFailureCode>(
        'LOG_DIRECTORY_UNREADABLE',
        `The logs directory cannot be read: ${reasonOf(error)}.`,
      );
    }
    const window = { from: query.startTime.getTime(), to: query.endTime.getTime() };
    const terms = parseLogQuery(query.query);
    const filters = query.filters ?? {};
    const problems = [...planned.problems];
    const files: LogFileCoverage[] = [];
    const matches: Match[] = [];
    const onMatch = (match: Match) => {
      matches.push(match);
      if (matches.length > this.config.maxMatches) {
        throw new ToolFailure<QueryLogsFailureCode>(
          'LOG_TOO_MANY_MATCHES',
          `More than ${this.config.maxMatches} log events match; narrow the query, add filters or shorten the window.`,
        );
      }
    };
    for (const plan of planned.plans.filter((candidate) => candidate.topic === query.topic)) {
      signal.throwIfAborted();
      try {
        files.push(await searchFile(plan, window, terms, filters, onMatch, signal));
      } catch (error) {
        if (error instanceof ToolFailure || signal.aborted) throw error;
        problems.push({ file: plan.file, reason: reasonOf(error) });
      }
    }
    matches.sort((a, b) => a.at - b.at);
    return {
      source_kind: 'FILE',
      topic: query.topic,
      query: query.query,
      start_time: query.startTime.toISOString(),
      end_time: query.endTime.toISOString(),
      ...(Object.keys(filters).length > 0 ? { filters } : {}),
      events: matches.map(({ at: _at, ...event }) => event),
      unreadable_lines: files.reduce((sum, file) => sum + file.unreadable_lines, 0),
      files,
      unreadable_files: problems,
    };
  }
}
