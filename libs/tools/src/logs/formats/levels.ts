import type { LogLevel } from './log-format';

const LEVELS: Record<string, LogLevel> = {
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

/** syslog / journald severities 0-7 (0 emergency ... 3 error, 4 warning, 5 notice, 6 info, 7 debug). */
export const SYSLOG_SEVERITY: readonly LogLevel[] = [
  'ERROR',
  'ERROR',
  'ERROR',
  'ERROR',
  'WARN',
  'INFO',
  'INFO',
  'DEBUG',
];

/** pino/bunyan numeric levels (10 trace, 20 debug, 30 info, 40 warn, 50 error, 60 fatal). */
export function numericLevel(value: number): LogLevel {
  if (value >= 50) return 'ERROR';
  if (value >= 40) return 'WARN';
  if (value >= 30) return 'INFO';
  return 'DEBUG';
}

/** The level of a value (a name, a syslog severity 0-7 or a pino/bunyan number), or null when unknown. */
export function levelOf(value: unknown): LogLevel | null {
  const numeric =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\s*\d+\s*$/.test(value)
        ? Number(value)
        : Number.NaN;
  if (Number.isInteger(numeric) && numeric >= 0) {
    return numeric <= 7 ? SYSLOG_SEVERITY[numeric] : numericLevel(numeric);
  }
  return (typeof value === 'string' && LEVELS[value.trim().toLowerCase()]) || null;
}

// Written level names as log layouts print them: upper-case words, `level=warn`, or nginx's `[error]`.
const EMBEDDED =
  /(?:^|[\s[(|])(TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|FATAL|CRITICAL|SEVERE)(?=$|[\s\]):|,-])|\blevel=["']?([a-zA-Z]+)|\[(debug|info|notice|warn|error|crit|alert|emerg)\]/;

/**
 * A level written near the start of a free-text message (the first 120 characters), as logback, log4j,
 * Python, nginx error logs and logfmt write it; null when none is written.
 */
export function embeddedLevel(text: string): LogLevel | null {
  const found = EMBEDDED.exec(text.slice(0, 120));
  if (!found) return null;
  return levelOf(found[1] ?? found[2] ?? found[3]);
}
