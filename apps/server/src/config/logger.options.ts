import { Params } from 'nestjs-pino';
import { AppConfig } from './app.config';

/** Paths whose values never reach the log, whatever a caller puts there. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.token',
  '*.apiKey',
  '*.api_key',
  '*.secret',
];

/**
 * The URL as logged: a query string (which may carry a credential by mistake) is replaced, and so is
 * every path-segment parameter (`/sessions;api_key=…`, matrix-style, or `;token=…` anywhere).
 */
export function loggedUrl(url: string): string {
  const query = url.indexOf('?');
  const path = (query < 0 ? url : url.slice(0, query)).replace(/(?:;|%3b)[^/]*/giu, ';[REDACTED]');
  return query < 0 ? path : `${path}?[REDACTED]`;
}

export function buildLoggerOptions(config: AppConfig): Params {
  return {
    // Silent: no request logger is mounted at all (no per-request child logger, id or listeners);
    // loggers then write through the root logger, which discards everything.
    ...(config.logLevel === 'silent' ? { forRoutes: [] } : {}),
    pinoHttp: {
      level: config.logLevel,
      redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
      // Request bodies (queries, uploads) and query strings are never logged; only method, path and status.
      serializers: {
        req: (req: { id: unknown; method: string; url: string }) => ({
          id: req.id,
          method: req.method,
          url: loggedUrl(req.url),
        }),
      },
      autoLogging: { ignore: (req) => req.url === '/health' },
    },
  };
}
