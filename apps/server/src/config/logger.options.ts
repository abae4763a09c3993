import type { RequestHandler } from 'express';
import { Params } from 'nestjs-pino';
import { pino, type DestinationStream, type Logger } from 'pino';
import { pinoHttp } from 'pino-http';
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

/** The levels that write pino-http's lines (it logs every request, failed ones too, at `info`). */
const REQUEST_LOG_LEVELS = new Set(['info', 'debug', 'trace']);

/**
 * nestjs-pino's options: Nest's log lines through the service's one pino logger, and no request
 * middleware of nestjs-pino's own. That middleware binds each request to ambient async context (so Nest's
 * log lines carry the request), which on Node 20 hooks every promise the process creates, a run's model
 * and tool calls included (~1 % of the service's CPU in a profile of 1,000 diagnoses); nothing here keeps
 * state in ambient context. The request log comes from `requestLogMiddleware`; run log lines name their run.
 */
export function buildLoggerOptions(config: AppConfig): Params {
  return { forRoutes: [], pinoHttp: { logger: serviceLogger(config.logLevel) } };
}

/** The service's one pino logger: the level, and REDACTED_PATHS censored in every line (stdout unless given). */
export function serviceLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' } };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * The request log (method, path without its query, status, time) through the logger of `params`, one
 * `info` line per request; none when the level drops `info` lines (warn and above, silent), so no
 * request pays for lines nobody reads.
 */
export function requestLogMiddleware(config: AppConfig, params: Params): RequestHandler | null {
  if (!REQUEST_LOG_LEVELS.has(config.logLevel)) return null;
  const { logger } = params.pinoHttp as { logger: Logger };
  return pinoHttp({
    logger,
    // Request bodies (queries, uploads) and query strings are never logged; only method, path and status.
    serializers: {
      req: (req: { id: unknown; method: string; url: string }) => ({
        id: req.id,
        method: req.method,
        url: loggedUrl(req.url),
      }),
    },
    autoLogging: { ignore: (req) => req.url === '/health' },
  });
}
