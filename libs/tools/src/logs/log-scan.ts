import { formatById, isRecord, LogFormatId, LogRecord, ParseContext, RecordReader } from './formats';
import { readLineChunks, lineBounds } from './log-line-reader';
import { LogFilters, LogQueryTerms, matchesLogQuery } from './log-match';
import { candidateLines, candidateRecords, prefilterOf } from './log-prefilter';
import { byteRangeOf, timeIndexOf } from './log-time-index';
import type { LogEvent, LogFileCoverage } from './log-source.port';
import { LogFileProblem, reasonOf } from './log-files';

/** One file to scan, as plain data (it crosses to a worker thread). */
export interface ScanFile {
  file: string;
  path: string;
  format: LogFormatId;
  service: string | null;
  context: ParseContext;
  size: number;
  modified: number;
}

/** One query's scan over a topic's files. */
export interface ScanTask {
  files: ScanFile[];
  window: { from: number; to: number };
  terms: LogQueryTerms;
  filters: LogFilters;
  maxLineBytes: number;
  /** The match limit: at most this many matches, and at most this many bytes of them as JSON. */
  maxMatches: number;
  maxMatchBytes: number;
}

export type LogMatch = LogEvent & { at: number };

/** Why a scan stopped before the end of its window, and how far it got. */
export interface MatchLimit {
  /** MATCHES: the configured count; EVIDENCE_BYTES: what the evidence record can hold. */
  by: 'MATCHES' | 'EVIDENCE_BYTES';
  matches: number;
  /** Time of the last record read: the window actually searched ends here. */
  scanned_to: string;
  /** Files of the topic not reached at all. */
  files_not_scanned: number;
}

export interface ScanOutcome {
  files: LogFileCoverage[];
  problems: LogFileProblem[];
  matches: LogMatch[];
  limit: MatchLimit | null;
}

/**
 * One file's scan: only the bytes a time-ordered file holds for the window are read, only lines the
 * prefilter lets through are parsed, and unreadable lines are counted at the records around them.
 */
async function scanFile(
  file: ScanFile,
  task: ScanTask,
  take: (match: LogMatch) => boolean,
  stopped: () => boolean,
): Promise<LogFileCoverage> {
  const format = formatById(file.format);
  const plan = { ...file, format };
  const index = await timeIndexOf(plan);
  const range = await byteRangeOf(plan, index, task.window);
  let min = index.first ?? Infinity;
  let max = index.last ?? -Infinity;
  const coverage = (unreadable: number, long: number): LogFileCoverage => ({
    file: file.file,
    format: format.id,
    from: Number.isFinite(min) ? new Date(min).toISOString() : null,
    to: Number.isFinite(max) ? new Date(max).toISOString() : null,
    unreadable_lines: unreadable + long,
    ...(long > 0 ? { long_lines: long } : {}),
  });
  if (range.skipped) return coverage(0, 0);
  const { window, terms, filters } = task;
  const reader = new RecordReader(format, file.context);
  const prefilter = prefilterOf(terms.include, format, file.service);
  // A multi-line format's records are let through whole: a term may be in any line of a stack trace.
  // A record starts where the reader starts one: a line that is no continuation and reads as a record.
  const continuation = format.continuation?.bind(format);
  const startsRecord = continuation
    ? (line: string) => continuation(line) === null && isRecord(format.parse(line, file.context))
    : null;
  let unreadable = 0;
  let long = 0;
  // Unreadable lines before the first record are counted at that record's time.
  let leading = 0;
  let full = false;
  const inWindow = (at: number) => at >= window.from && at <= window.to;
  const record = (read: LogRecord) => {
    min = Math.min(min, read.at);
    max = Math.max(max, read.at);
    if (leading > 0) {
      if (inWindow(read.at)) unreadable += leading;
      leading = 0;
    }
    if (!inWindow(read.at)) return;
    const service = read.service ?? file.service ?? 'unknown';
    const event = { service, level: read.level, message: read.message, fields: read.fields };
    if (!matchesLogQuery(event, terms, filters)) return;
    full ||= !take({
      at: read.at,
      timestamp: new Date(read.at).toISOString(),
      level: read.level,
      service,
      message: read.message,
    });
  };
  const feed = (line: string) => {
    if (full || line.trim() === '') return;
    for (const step of reader.push(line)) {
      if (step.kind === 'record') record(step.record);
      else if (step.kind === 'unreadable') {
        const at = reader.lastAt;
        if (Number.isNaN(at)) leading += 1;
        else if (inWindow(at)) unreadable += 1;
      }
    }
  };
  const chunks = readLineChunks(file.path, {
    from: range.from,
    to: range.to,
    maxLineBytes: task.maxLineBytes,
    stopped: () => full || stopped(),
  });
  for await (const chunk of chunks) {
    if (chunk.kind === 'long') {
      long += 1;
      continue;
    }
    const { bytes, start, end } = chunk;
    if (prefilter && startsRecord) {
      const spans = candidateRecords(bytes, start, end, prefilter, startsRecord) ?? [[start, end]];
      for (const [spanFrom, spanTo] of spans) {
        for (const [from, to] of lineBounds(bytes, spanFrom, spanTo)) feed(bytes.toString('utf8', from, to));
      }
    } else if (prefilter) {
      for (const [from, to] of candidateLines(bytes, start, end, prefilter)) {
        feed(bytes.toString('utf8', from, to > from && bytes[to - 1] === 13 ? to - 1 : to));
      }
    } else {
      for (const [from, to] of lineBounds(bytes, start, end)) feed(bytes.toString('utf8', from, to));
    }
  }
  if (!full) for (const step of reader.end()) if (step.kind === 'record') record(step.record);
  // Unreadable lines with no readable record at all: the whole range is unread, and it may cover the window.
  if (leading > 0) unreadable += leading;
  return coverage(unreadable, long);
}

/**
 * A query's scan over its topic's files, oldest file first, stopping as soon as the match limit is
 * reached (the outcome says where). `stopped` is the caller's cancellation, checked between reads.
 */
export async function scanFiles(task: ScanTask, stopped: () => boolean): Promise<ScanOutcome> {
  const matches: LogMatch[] = [];
  const files: LogFileCoverage[] = [];
  const problems: LogFileProblem[] = [];
  let bytes = 2;
  let limit: MatchLimit | null = null;
  const ordered = [...task.files].sort((a, b) => a.modified - b.modified || a.file.localeCompare(b.file));
  // The first match that does not fit ends the scan; its time is where the searched window ends.
  const take = (match: LogMatch): boolean => {
    if (limit) return false;
    const size = Buffer.byteLength(JSON.stringify(match)) + 1;
    const by =
      matches.length >= task.maxMatches
        ? 'MATCHES'
        : bytes + size > task.maxMatchBytes
          ? 'EVIDENCE_BYTES'
          : null;
    if (by) {
      limit = { by, matches: matches.length, scanned_to: match.timestamp, files_not_scanned: 0 };
      return false;
    }
    matches.push(match);
    bytes += size;
    return true;
  };
  for (const [i, file] of ordered.entries()) {
    if (stopped()) break;
    try {
      files.push(await scanFile(file, task, take, stopped));
    } catch (error) {
      problems.push({ file: file.file, reason: reasonOf(error) });
    }
    if (limit) {
      (limit as MatchLimit).files_not_scanned = ordered.length - i - 1;
      break;
    }
  }
  return { files, problems, matches, limit };
}
