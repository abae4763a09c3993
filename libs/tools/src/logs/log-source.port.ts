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
}

/** What a log source returns: every matching event in scope, time-ordered. */
export interface LogRawResponse {
  source_kind: 'MOCK' | 'FILE' | 'CLS';
  topic: LogTopic;
  query: string;
  start_time: string;
  end_time: string;
  events: LogEvent[];
  /** FILE only: lines mentioning the query's terms that are not readable records (not JSON, no timestamp). */
  unreadable_lines?: number;
}

/**
 * The log source port: MOCK (generated demo data) or FILE (JSON-lines exports, chosen by
 * LOG_BACKEND). Region, topic ids, files and limits are the adapter's.
 */
export abstract class LogSourcePort {
  abstract search(query: LogQuery, signal: AbortSignal): Promise<LogRawResponse>;
}
