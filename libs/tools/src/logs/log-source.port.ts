import type { LogFilters } from './log-match';

export const LOG_TOPICS = ['APPLICATION', 'ACCESS', 'DATABASE'] as const;
export type LogTopic = (typeof LOG_TOPICS)[number];

export interface LogEvent {
  timestamp: string;
  level: 'ERROR' | 'WARN' | 'INFO' | 'DEBUG';
  service: string;
  message: string;
}

export interface LogQuery {
  topic: LogTopic;
  query: string;
  startTime: Date;
  endTime: Date;
  filters?: LogFilters;
}

/** One file a FILE search read (or could not read), with the time range its readable records cover. */
export interface LogFileCoverage {
  file: string;
  format: string;
  /** First and last record time in the file, null when it holds no readable record. */
  from: string | null;
  to: string | null;
  /** Lines of this file in the searched window (by the records around them) that could not be read. */
  unreadable_lines: number;
  /** Of those, lines longer than the line cap (LOGS_MAX_LINE_BYTES), skipped unread. */
  long_lines?: number;
}

/** What a log source returns: every matching event in scope, time-ordered. */
export interface LogRawResponse {
  /** The backend's declared kind (LogBackendDefinition.results): FILE, MOCK; it decides the demo mark. */
  source_kind: string;
  topic: LogTopic;
  query: string;
  start_time: string;
  end_time: string;
  filters?: LogFilters;
  events: LogEvent[];
  /** FILE only: lines in the searched window that are not readable records (summed over the files). */
  unreadable_lines?: number;
  /** FILE only: the topic's files searched, with their time ranges. */
  files?: LogFileCoverage[];
  /** FILE only: files of the logs directory that could not be read (path and reason); they fail only themselves. */
  unreadable_files?: { file: string; reason: string }[];
  /** FILE only: the match limit was reached and the scan stopped early (events are the matches so far). */
  match_limit?: {
    by: 'MATCHES' | 'EVIDENCE_BYTES';
    matches: number;
    scanned_to: string;
    files_not_scanned: number;
  };
}

/**
 * The log source port: one adapter per LOG_BACKEND (logs/log-backends.ts, docs/backends.md). Files,
 * topics' storage and limits are the adapter's.
 */
export abstract class LogSourcePort {
  abstract search(query: LogQuery, signal: AbortSignal): Promise<LogRawResponse>;
}
