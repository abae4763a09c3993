import { createReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ToolFailure } from '@app/harness';
import { matchesQuery, queryTerms, requiredHits } from './log-match';
import { LOG_TOPICS, LogEvent, LogQuery, LogRawResponse, LogSourcePort, LogTopic } from './log-source.port';

export interface JsonlFieldNames {
  timestamp: string;
  level: string;
  service: string;
  message: string;
}

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
  warn: 'WARN',
  warning: 'WARN',
  info: 'INFO',
  notice: 'INFO',
  information: 'INFO',
  debug: 'DEBUG',
  trace: 'DEBUG',
  verbose: 'DEBUG',
};
// pino/bunyan numeric levels
const NUMERIC_LEVELS: [number, LogEvent['level']][] = [
  [50, 'ERROR'],
  [40, 'WARN'],
  [30, 'INFO'],
  [0, 'DEBUG'],
];

export function normalizeLevel(value: unknown): LogEvent['level'] {
  if (typeof value === 'number') return NUMERIC_LEVELS.find(([floor]) => value >= floor)?.[1] ?? 'DEBUG';
  return (typeof value === 'string' && LEVELS[value.trim().toLowerCase()]) || 'INFO';
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

/** Epoch ms of an ISO-8601 string or an epoch number (seconds below 1e11, else milliseconds); NaN otherwise. */
export function timestampOf(value: unknown): number {
  if (typeof value === 'number') return value < 1e11 ? value * 1000 : value;
  if (typeof value === 'string' && value.trim() !== '') return Date.parse(value);
  return Number.NaN;
}

/** One JSON line as a log event with its epoch time, or null when it is not a usable record. */
export function parseLine(line: string, fields: JsonlFieldNames): (LogEvent & { at: number }) | null {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return null;
  const fieldsOf = record as Record<string, unknown>;
  const at = timestampOf(fieldOf(fieldsOf, fields.timestamp));
  const message = fieldOf(fieldsOf, fields.message);
  if (!Number.isFinite(at) || message === undefined || message === null) return null;
  const service = fieldOf(fieldsOf, fields.service);
  return {
    at,
    timestamp: new Date(at).toISOString(),
    level: normalizeLevel(fieldOf(fieldsOf, fields.level)),
    service: typeof service === 'string' && service !== '' ? service : 'unknown',
    message: typeof message === 'string' ? message : JSON.stringify(message),
  };
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

/**
 * Cheap time pre-check before JSON.parse: when the timestamp key occurs exactly once in the line and its
 * value is readable, a line outside the window is skipped unparsed. Anything unclear is parsed.
 */
export function outsideWindow(line: string, key: string, pattern: RegExp, from: number, to: number): boolean {
  const first = line.indexOf(key);
  if (first < 0 || first !== line.lastIndexOf(key)) return false;
  const value = pattern.exec(line);
  if (!value) return false;
  const at = value[1] !== undefined ? Date.parse(value[1]) : timestampOf(Number(value[2]));
  return Number.isFinite(at) && (at < from || at > to);
}

/**
 * The FILE log source: JSON-lines exports in one directory, mapped to topics by file-name globs. Files are
 * streamed line by line (never read whole), so a gigabyte export costs memory only for its matches;
 * lines that are not JSON objects with a timestamp and a message are skipped.
 */
export class JsonlLogSource extends LogSourcePort {
  constructor(private readonly config: JsonlLogSourceConfig) {
    super();
  }

  async search(query: LogQuery, signal: AbortSignal): Promise<LogRawResponse> {
    const globs = this.config.topics[query.topic];
    if (!globs) {
      throw new ToolFailure(
        'LOG_TOPIC_NOT_CONFIGURED',
        `No log files are configured for topic ${query.topic}.`,
      );
    }
    const patterns = globs.map(globToRegExp);
    const files = (await readdir(this.config.directory, { withFileTypes: true }))
      .filter((entry) => entry.isFile() && patterns.some((pattern) => pattern.test(entry.name)))
      .map((entry) => entry.name)
      .sort();
    const from = query.startTime.getTime();
    const to = query.endTime.getTime();
    const terms = queryTerms(query.query);
    const needed = requiredHits(terms);
    const timeKey = JSON.stringify(this.config.fields.timestamp);
    const timePattern = new RegExp(
      `${timeKey.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*:\\s*(?:"([^"\\\\]*)"|(\\d+(?:\\.\\d+)?))`,
    );
    const matches: (LogEvent & { at: number })[] = [];
    for (const file of files) {
      signal.throwIfAborted();
      const stream = createReadStream(join(this.config.directory, file), { encoding: 'utf8' });
      const stop = () => stream.destroy();
      signal.addEventListener('abort', stop, { once: true });
      try {
        for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
          if (!mayMatch(line, terms, needed) || outsideWindow(line, timeKey, timePattern, from, to)) continue;
          const event = parseLine(line, this.config.fields);
          if (!event || event.at < from || event.at > to || !matchesQuery(event, terms)) continue;
          matches.push(event);
          if (matches.length > this.config.maxMatches) {
            throw new ToolFailure(
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
    };
  }
}
