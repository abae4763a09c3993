import type { LogEvent } from '../log-source.port';

export type LogLevel = LogEvent['level'];

/** The formats the registry knows, most specific first (detection breaks ties in this order). */
export const LOG_FORMAT_IDS = [
  'journald-json',
  'docker-json',
  'ecs-json',
  'bunyan-json',
  'pino-json',
  'logstash-json',
  'json',
  'logfmt',
  'combined',
  'logback',
  'syslog-5424',
  'syslog-3164',
] as const;
export type LogFormatId = (typeof LOG_FORMAT_IDS)[number];

/** Per role, the JSON field names tried in order (generic JSON lines; a file rule may replace a role's list). */
export interface JsonFieldNames {
  timestamp: string[];
  level: string[];
  service: string[];
  message: string[];
}

/** What a line parser needs beyond the line: how to read times written without a zone or a year. */
export interface ParseContext {
  /** IANA zone (`Asia/Shanghai`) or fixed offset (`+08:00`) for timestamps written without a zone. */
  timeZone: string;
  /** Epoch ms of the file's last write: a year-less (RFC 3164) date is the latest one not after it (+1 day). */
  referenceTime: number;
  /** Generic JSON only: the field names per role (defaults, or a file rule's). */
  fields: JsonFieldNames;
}

/** Where a record's level came from: written in it, inferred (stream, HTTP status, embedded text) or the INFO default. */
export type LevelSource = 'RECORD' | 'INFERRED' | 'DEFAULT';

/** One log record as read, before the source adds the file's topic and service fallback. */
export interface LogRecord {
  at: number;
  level: LogLevel;
  levelFrom: LevelSource;
  /** A level value was written but is not one we know (read as INFO). */
  unknownLevel: boolean;
  /** The service the record names (ECS service.name, journald unit, syslog app name...), null when none. */
  service: string | null;
  message: string;
  /**
   * Structured values the format maps (status, path, method, request/trace ids, host): what the
   * structured filters read, and searched like the message.
   */
  fields: Record<string, string>;
}

/** Why a line could not be read (counted per file and named in the start-up warning and doctor). */
export const UNREADABLE_REASONS = [
  'NOT_JSON',
  'NOT_THIS_FORMAT',
  'NO_TIMESTAMP',
  'NO_MESSAGE',
  'ORPHAN_CONTINUATION',
  'EVENT_TOO_LONG',
  'LINE_TOO_LONG',
] as const;
export type UnreadableReason = (typeof UNREADABLE_REASONS)[number];

/**
 * One log format: a pure line parser. `continuation` recognises a line that continues the previous
 * record (a stack trace line) and returns the text to append; formats without it are one record per line.
 */
export interface LogFormat {
  id: LogFormatId;
  /** What the docs and doctor call it. */
  name: string;
  parse(line: string, context: ParseContext): LogRecord | UnreadableReason;
  continuation?(line: string): string | null;
  /** The topic its files get when no rule names one (access logs are ACCESS). */
  topic?: 'ACCESS';
}

export const isRecord = (read: LogRecord | UnreadableReason): read is LogRecord => typeof read !== 'string';
