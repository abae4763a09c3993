import { createReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ToolFailure } from '@app/harness';
import { matchesQuery, queryTerms, requiredHits } from './log-match';
import { LOG_TOPICS, LogEvent, LogQuery, LogRawResponse, LogSourcePort, LogTopic } from './log-source.port';
import type { QueryLogsFailureCode } from './query-logs.codes';

/** Per role, the field names tried in order; the first one a line has with a usable value is used. */
export interface JsonlFieldNames {
  timestamp: string[];
  level: string[];
  service: string[];
  message: string[];
}

/**
 * What common exporters write (ECS, logback/log4j JSON layouts, pino, bunyan, Python, Docker), so an
 * export is read without configuration; a LOGS_JSONL_*_FIELD setting replaces its role's list.
 */
export const DEFAULT_JSONL_FIELDS: JsonlFieldNames = {
  timestamp: ['@timestamp', 'timestamp', 'time', 'ts', 'datetime', 'date', '@t', 't'],
  level: ['level', 'lvl', 'severity', 'levelname', 'log.level', 'loglevel', '@l'],
  service: ['service', 'service.name', 'svc', 'app', 'application', 'logger', 'logger_name', 'name'],
  message: ['message', 'msg', 'log', '@m', '@mt'],
};

export interface JsonlLogSourceConfig {
  directory: string;
  /** topic -> file-name globs inside `directory` (`*` and `?`, no path separators). */
  topics: Partial<Record<LogTopic, string[]>>;
  fields: JsonlFieldNames;
  /** More matching events than this in one query is a Tool ERROR asking for a narrower query. */
  maxMatches: number;
}

/** `APPLICATION=app*.jsonl|svc-*.jsonl,ACCESS=access.jsonl` -> topic -> globs; throws a message naming the problem. */
export function parseTopicGlobs(text: string): Partial<Record<LogTopic, string[]>> {
  const topics: Partial<Record<LogTopic, string[]>> = {};
  for (const entry of text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const [topic, globs, ...rest] = entry.split('=');
    const name = topic.trim() as LogTopic;
    if (rest.length > 0 || globs === undefined) throw new Error('every entry must be TOPIC=glob|glob');
    if (!LOG_TOPICS.includes(name)) throw new Error(`topics must be one of ${LOG_TOPICS.join(', ')}`);
    if (topics[name]) throw new Error(`topic ${name} is listed twice`);
    const list = globs
      .split('|')
      .map((glob) => glob.trim())
      .filter(Boolean);
    if (list.length === 0 || list.some((glob) => /[\\/]/.test(glob) || glob.startsWith('.'))) {
      throw new Error(`topic ${name} needs file-name globs without path separators`);
    }
    topics[name] = list;
  }
  if (Object.keys(topics).length === 0) throw new Error('no topic is mapped');
  return topics;
}

/** A file-name glob (`*`, `?`) as an anchored regular expression. */
export function globToRegExp(glob: string): RegExp {
  const body = glob
    .split('')
    .map((char) =>
      char === '*' ? '[^/]*' : char === '?' ? '[^/]' : char.replace(/[.+^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  return new RegExp(`^${body}$`);
}

const LEVELS: Record<string, LogEvent['level']> = {
  fatal: 'ERROR',
  critical: 'ERROR',
  crit: 'ERROR',
  error: 'ERROR',
  err: 'ERROR',
  alert: 'ERROR',
  emerg: 'ERROR',
  emergency: 'ERROR',
  panic: 'ERROR',
  severe: 'ERROR',
  f: 'ERROR',
  c: 'ERROR',
  e: 'ERROR',
  warn: 'WARN',
  warning: 'WARN',
  w: 'WARN',
  info: 'INFO',
  notice: 'INFO',
  information: 'INFO',
  informational: 'INFO',
  config: 'INFO',
  i: 'INFO',
  n: 'INFO',
  debug: 'DEBUG',
  trace: 'DEBUG',
  verbose: 'DEBUG',
  fine: 'DEBUG',
  finer: 'DEBUG',
  finest: 'DEBUG',
  d: 'DEBUG',
  t: 'DEBUG',
  v: 'DEBUG',
};
// syslog severities 0-7 (0 emergency ... 3 error, 4 warning, 5 notice, 6 info, 7 debug)
const SYSLOG_LEVELS: LogEvent['level'][] = [
  'ERROR',
  'ERROR',
  'ERROR',
  'ERROR',
  'WARN',
  'INFO',
  'INFO',
  'DEBUG',
];
// pino/bunyan numeric levels (10 trace, 20 debug, 30 info, 40 warn, 50 error, 60 fatal)
const NUMERIC_LEVELS: [number, LogEvent['level']][] = [
  [50, 'ERROR'],
  [40, 'WARN'],
  [30, 'INFO'],
  [0, 'DEBUG'],
];

/** The level of a value, or null when it is not one we know (the caller decides the default). */
export function levelOf(value: unknown): LogEvent['level'] | null {
  const numeric =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\s*\d+\s*$/.test(value)
        ? Number(value)
        : NaN;
  if (Number.isInteger(numeric) && numeric >= 0) {
    if (numeric <= 7) return SYSLOG_LEVELS[numeric];
    return NUMERIC_LEVELS.find(([floor]) => numeric >= floor)?.[1] ?? 'DEBUG';
  }
  return (typeof value === 'string' && LEVELS[value.trim().toLowerCase()]) || null;
}

/** A line without a (known) level counts as INFO, as most exporters mean it. */
export function normalizeLevel(value: unknown): LogEvent['level'] {
  return levelOf(value) ?? 'INFO';
}

/** A field by name, or by dotted path (`log.level`) when no top-level key has that exact name. */
export function fieldOf(record: Record<string, unknown>, name: string): unknown {
  if (name in record) return record[name];
  let value: unknown = record;
  for (const part of name.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** Epoch seconds, milliseconds, microseconds or nanoseconds, told apart by magnitude. */
function epochMs(value: number): number {
  if (!Number.isFinite(value) || value <= 0) return Number.NaN;
  if (value < 1e11) return value * 1000;
  if (value < 1e14) return value;
  if (value < 1e17) return value / 1000;
  return value / 1e6;
}

// RFC 3339 / ISO 8601 and the log4j/logback layout: `T` or a space, `.` or `,` before the fraction, zone optional.
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * Epoch ms of a timestamp, NaN when unreadable: epoch numbers or digit strings (s/ms/µs/ns by
 * magnitude), RFC 3339 with or without zone, `yyyy-MM-dd HH:mm:ss,SSS`. A time without zone is read
 * as UTC (never the server's local zone, which would shift evidence by hours between machines).
 */
export function timestampOf(value: unknown): number {
  if (typeof value === 'number') return epochMs(value);
  if (typeof value !== 'string') return Number.NaN;
  const text = value.trim();
  if (text === '') return Number.NaN;
  if (/^\d+(\.\d+)?$/.test(text)) return epochMs(Number(text));
  const parts = DATE_TIME.exec(text);
  if (!parts) return Date.parse(text);
  const [, year, month, day, hour, minute, second = '0', fraction = '', zone = 'Z'] = parts;
  const ms = Number(fraction.padEnd(3, '0').slice(0, 3));
  const utc = Date.UTC(+year, +month - 1, +day, +hour, +minute, +second, ms);
  if (+month < 1 || +month > 12 || +day < 1 || +day > 31 || +hour > 23 || +minute > 59 || +second > 60) {
    return Number.NaN;
  }
  const offset = /^[+-]/.test(zone) ? zoneMinutes(zone) : 0;
  return utc - offset * 60_000;
}

function zoneMinutes(zone: string): number {
  const digits = zone.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0');
  return zone.startsWith('-') ? -minutes : minutes;
}

/** The first candidate field whose value is usable, with the name it was found under. */
function firstField(
  record: Record<string, unknown>,
  names: string[],
  usable: (value: unknown) => boolean,
): { name: string; value: unknown } | null {
  for (const name of names) {
    const value = fieldOf(record, name);
    if (usable(value)) return { name, value };
  }
  return null;
}

const present = (value: unknown) => value !== undefined && value !== null && value !== '';
const isText = (value: unknown) => typeof value === 'string' && value !== '';

/** Why a line could not be read (for counts and the start-up warning). */
export type UnreadableReason = 'NOT_JSON' | 'NO_TIMESTAMP' | 'NO_MESSAGE';

/** A readable line with the field names it was read from (logs-check reports them). */
export interface ParsedLine extends LogEvent {
  at: number;
  /** The level value was present but not one we know (read as INFO). */
  unknownLevel: boolean;
  fieldsUsed: { timestamp: string; level: string | null; service: string | null; message: string };
}

/** One JSON line as a log event, or the reason it cannot be one. */
export function readLine(line: string, fields: JsonlFieldNames): ParsedLine | UnreadableReason {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return 'NOT_JSON';
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return 'NOT_JSON';
  const fieldsOf = record as Record<string, unknown>;
  const time = firstField(fieldsOf, fields.timestamp, (value) => Number.isFinite(timestampOf(value)));
  if (!time) return 'NO_TIMESTAMP';
  const message =
    firstField(fieldsOf, fields.message, isText) ?? firstField(fieldsOf, fields.message, present);
  if (!message) return 'NO_MESSAGE';
  const level = firstField(fieldsOf, fields.level, present);
  const service = firstField(fieldsOf, fields.service, isText);
  const at = timestampOf(time.value);
  return {
    at,
    timestamp: new Date(at).toISOString(),
    level: normalizeLevel(level?.value),
    service: service ? String(service.value) : 'unknown',
    message: typeof message.value === 'string' ? message.value : JSON.stringify(message.value),
    unknownLevel: level !== null && levelOf(level.value) === null,
    fieldsUsed: {
      timestamp: time.name,
      level: level?.name ?? null,
      service: service?.name ?? null,
      message: message.name,
    },
  };
}

/** One JSON line as a log event with its epoch time, or null when it is not a usable record. */
export function parseLine(line: string, fields: JsonlFieldNames): (LogEvent & { at: number }) | null {
  const read = readLine(line, fields);
  if (typeof read === 'string') return null;
  const { unknownLevel: _unknown, fieldsUsed: _fields, ...event } = read;
  return event;
}

/**
 * Cheap pre-check on the raw line before JSON.parse: an event can only match when at least the required
 * number of terms occur somewhere in the lower-cased line. Lines with `\u` escapes are always parsed.
 */
function mayMatch(line: string, terms: string[], needed: number): boolean {
  if (terms.length === 0 || line.includes('\\u')) return true;
  const lower = line.toLowerCase();
  let hits = 0;
  for (const term of terms) if (lower.includes(term) && ++hits >= needed) return true;
  return false;
}

/** The quoted key and value pattern the cheap time pre-check looks for, per timestamp candidate. */
export interface TimeKey {
  key: string;
  pattern: RegExp;
}

export function timeKeysOf(names: string[]): TimeKey[] {
  return names.map((name) => {
    const key = JSON.stringify(name);
    const pattern = new RegExp(
      `${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*:\\s*(?:"([^"\\\\]*)"|(\\d+(?:\\.\\d+)?))`,
    );
    return { key, pattern };
  });
}

/**
 * Cheap time pre-check before JSON.parse: when exactly one timestamp candidate key occurs in the line,
 * exactly once, and its value is readable, a line outside the window is skipped unparsed. Anything
 * unclear is parsed.
 */
export function outsideWindow(line: string, keys: TimeKey[], from: number, to: number): boolean {
  let found: TimeKey | null = null;
  for (const candidate of keys) {
    const first = line.indexOf(candidate.key);
    if (first < 0) continue;
    if (found || first !== line.lastIndexOf(candidate.key)) return false;
    found = candidate;
  }
  if (!found) return false;
  const value = found.pattern.exec(line);
  if (!value) return false;
  const at = timestampOf(value[1] !== undefined ? value[1] : Number(value[2]));
  return Number.isFinite(at) && (at < from || at > to);
}

/** The regular files of `directory` that a topic's globs name, sorted by name. */
export async function filesOfTopic(directory: string, globs: string[]): Promise<string[]> {
  const patterns = globs.map(globToRegExp);
  return (await readdir(directory, { withFileTypes: true }))
    .filter((entry) => entry.isFile() && patterns.some((pattern) => pattern.test(entry.name)))
    .map((entry) => entry.name)
    .sort();
}

/**
 * The FILE log source: JSON-lines exports in one directory, mapped to topics by file-name globs. Files are
 * streamed line by line (never read whole), so a gigabyte export costs memory only for its matches;
 * lines that are not JSON objects with a timestamp and a message are skipped and, when they mention the
 * query's terms, counted in `unreadable_lines`.
 */
export class JsonlLogSource extends LogSourcePort {
  constructor(private readonly config: JsonlLogSourceConfig) {
    super();
  }

  async search(query: LogQuery, signal: AbortSignal): Promise<LogRawResponse> {
    const globs = this.config.topics[query.topic];
    if (!globs) {
      throw new ToolFailure<QueryLogsFailureCode>(
        'LOG_TOPIC_NOT_CONFIGURED',
        `No log files are configured for topic ${query.topic}.`,
      );
    }
    const files = await filesOfTopic(this.config.directory, globs);
    const from = query.startTime.getTime();
    const to = query.endTime.getTime();
    const terms = queryTerms(query.query);
    const needed = requiredHits(terms);
    const timeKeys = timeKeysOf(this.config.fields.timestamp);
    // Lines that could have matched the query terms but are not readable records: said in the result.
    let unreadable = 0;
    const matches: (LogEvent & { at: number })[] = [];
    for (const file of files) {
      signal.throwIfAborted();
      const stream = createReadStream(join(this.config.directory, file), { encoding: 'utf8' });
      const stop = () => stream.destroy();
      signal.addEventListener('abort', stop, { once: true });
      try {
        for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
          if (!mayMatch(line, terms, needed) || outsideWindow(line, timeKeys, from, to)) continue;
          const event = parseLine(line, this.config.fields);
          if (!event) {
            if (line.trim() !== '') unreadable += 1;
            continue;
          }
          if (event.at < from || event.at > to || !matchesQuery(event, terms)) continue;
          matches.push(event);
          if (matches.length > this.config.maxMatches) {
            throw new ToolFailure<QueryLogsFailureCode>(
              'LOG_TOO_MANY_MATCHES',
              `More than ${this.config.maxMatches} log events match; narrow the query or the time window.`,
            );
          }
        }
      } finally {
        signal.removeEventListener('abort', stop);
        stream.destroy();
      }
      signal.throwIfAborted();
    }
    matches.sort((a, b) => a.at - b.at);
    return {
      source_kind: 'FILE',
      topic: query.topic,
      query: query.query,
      start_time: query.startTime.toISOString(),
      end_time: query.endTime.toISOString(),
      events: matches.map(({ at: _at, ...event }) => event),
      unreadable_lines: unreadable,
    };
  }
}
