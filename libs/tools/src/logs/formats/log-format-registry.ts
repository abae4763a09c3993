import { BUNYAN_JSON_FORMAT, PINO_JSON_FORMAT } from './pino-json.format';
import { COMBINED_FORMAT } from './combined.format';
import { DOCKER_JSON_FORMAT } from './docker-json.format';
import { ECS_JSON_FORMAT } from './ecs-json.format';
import { JOURNALD_JSON_FORMAT } from './journald-json.format';
import { JSON_FORMAT } from './json.format';
import { isRecord, LogFormat, LogFormatId, LogRecord, ParseContext, UnreadableReason } from './log-format';
import { LOGBACK_FORMAT } from './logback.format';
import { LOGFMT_FORMAT } from './logfmt.format';
import { LOGSTASH_JSON_FORMAT } from './logstash-json.format';
import { SYSLOG_3164_FORMAT } from './syslog-3164.format';
import { SYSLOG_5424_FORMAT } from './syslog-5424.format';

/** Every format the FILE log source reads, most specific first: detection breaks ties in this order. */
export const LOG_FORMATS: readonly LogFormat[] = [
  JOURNALD_JSON_FORMAT,
  DOCKER_JSON_FORMAT,
  ECS_JSON_FORMAT,
  BUNYAN_JSON_FORMAT,
  PINO_JSON_FORMAT,
  LOGSTASH_JSON_FORMAT,
  JSON_FORMAT,
  LOGFMT_FORMAT,
  COMBINED_FORMAT,
  LOGBACK_FORMAT,
  SYSLOG_5424_FORMAT,
  SYSLOG_3164_FORMAT,
];

export function formatById(id: LogFormatId): LogFormat {
  const format = LOG_FORMATS.find((candidate) => candidate.id === id);
  if (!format) throw new Error(`unknown log format ${id}`);
  return format;
}

export interface FormatDetection {
  /** The format that reads most of the sample, null when none reads a single line. */
  format: LogFormat | null;
  /** Non-empty lines sampled, and how many of them the chosen format read (records and continuations). */
  sampled: number;
  read: number;
}

/** How many of `lines` a format reads: records, plus continuation lines after a record. */
function score(format: LogFormat, lines: readonly string[], context: ParseContext): number {
  let read = 0;
  let inRecord = false;
  for (const line of lines) {
    if (isRecord(format.parse(line, context))) {
      read += 1;
      inRecord = true;
    } else if (inRecord && format.continuation?.(line) != null) {
      read += 1;
    } else {
      inRecord = false;
    }
  }
  return read;
}

/** The format of a file from a sample of its non-empty lines: the one reading the most, ties in registry order. */
export function detectFormat(
  lines: readonly string[],
  context: ParseContext,
  candidates: readonly LogFormat[] = LOG_FORMATS,
): FormatDetection {
  let best: LogFormat | null = null;
  let bestRead = 0;
  for (const format of candidates) {
    const read = score(format, lines, context);
    if (read > bestRead) [best, bestRead] = [format, read];
  }
  return { format: best, sampled: lines.length, read: bestRead };
}

/** Bounds of one multi-line record: longer stack traces are cut and the rest counted unreadable. */
export const MAX_JOINED_LINES = 500;
export const MAX_RECORD_CHARS = 64 * 1024;

export type ReadStep =
  | { kind: 'record'; record: LogRecord }
  | { kind: 'unreadable'; reason: UnreadableReason }
  | { kind: 'joined' };

/**
 * Reads one file's lines with its format: one record per line, or, for formats with continuation
 * lines, each record once the next one starts (call `end` for the last). Streaming, bounded memory.
 */
export class RecordReader {
  private pending: LogRecord | null = null;
  private pendingLines = 0;
  private last = Number.NaN;

  constructor(
    private readonly format: LogFormat,
    private readonly context: ParseContext,
  ) {}

  /** The time of the latest record read so far (NaN before the first): unreadable lines are counted at it. */
  get lastAt(): number {
    return this.last;
  }

  /** Feeds one non-empty line; the record it completes (if any) comes back. */
  push(line: string): ReadStep[] {
    const more = this.format.continuation?.(line) ?? null;
    if (more !== null && this.pending) {
      if (
        this.pendingLines >= MAX_JOINED_LINES ||
        this.pending.message.length + more.length > MAX_RECORD_CHARS
      ) {
        return [{ kind: 'unreadable', reason: 'EVENT_TOO_LONG' }];
      }
      this.pending.message += `\n${more}`;
      this.pendingLines += 1;
      return [{ kind: 'joined' }];
    }
    const read = this.format.parse(line, this.context);
    if (!isRecord(read)) {
      return [{ kind: 'unreadable', reason: more !== null ? 'ORPHAN_CONTINUATION' : read }];
    }
    this.last = read.at;
    if (!this.format.continuation) return [{ kind: 'record', record: read }];
    const done = this.pending;
    this.pending = read;
    this.pendingLines = 1;
    return done ? [{ kind: 'record', record: done }] : [];
  }

  /** The last record of a multi-line format, once the file ends. */
  end(): ReadStep[] {
    const done = this.pending;
    this.pending = null;
    return done ? [{ kind: 'record', record: done }] : [];
  }
}
