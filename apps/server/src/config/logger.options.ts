import type { RequestHandler } from 'express';
import { errorKind } from '@app/harness';
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
 * every path-segment parameter (`/sessions;api_key=…`, matrix-style, or `;token=…` anywhere). Both
 * separators count percent-encoded too (`%3F`, `%3B`): a client that encodes them still sent the value.
 */
export function loggedUrl(url: string): string {
  const query = url.search(/\?|%3f/iu);
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

/** What the request log keeps of a failed request's error: its type and a system error code, never its text. */
export const loggedError = (error: { name?: unknown; code?: unknown }) => errorKind(error);

/**
 * The request log: one `info` line per request (method, path without its query, status, response time, and
 * for a failed one its error's type) through the logger of `params`; none when the level drops `info`
 * lines (warn and above, silent), so no request pays for lines nobody reads.
 *
 * Every field is picked by an allowlist. pino-http's own serializers would write every response header
 * and, for each 5xx (a 503 at capacity too), the message and stack trace of an error it makes up. As nothing
 * else can reach these lines, their logger drops the service's redaction paths: pino-http binds each
 * request to a child logger, and redaction would walk those bindings again on every request.
 */
export function requestLogMiddleware(config: AppConfig, params: Params): RequestHandler | null {
  if (!REQUEST_LOG_LEVELS.has(config.logLevel)) return null;
  const { logger } = params.pinoHttp as { logger: Logger };
  return pinoHttp({
    logger: logger.child({}, { redact: [] }),
    // Our serializers get the raw objects and copy only what they name.
    wrapSerializers: false,
    serializers: {
      req: (req: { id: unknown; method: string; url: string }) => ({
        id: req.id,
        method: req.method,
        url: loggedUrl(req.url),
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      err: loggedError,
    },
    autoLogging: { ignore: (req) => req.url === '/health' },
  });
}
