import type { LogFormat, LogLevel } from './log-format';
import { monthOf, wallTimeToUtc } from './timestamps';

// `%h %l %u %t "%r" %>s %b` ["%{Referer}i" "%{User-agent}i"] [anything nginx appends, e.g. $request_time]
const COMBINED =
  /^(\S+) (\S+) (\S+) \[(\d{2})\/([A-Za-z]{3})\/(\d{4}):(\d{2}):(\d{2}):(\d{2})(?: ([+-]\d{4}))?\] "((?:[^"\\]|\\.)*)" (\d{3}|-) (\d+|-)(?: "((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)")?(.*)$/;

/** 5xx ERROR, 4xx WARN, else INFO: what the status says about the request. */
export function levelOfStatus(status: number): LogLevel {
  if (status >= 500) return 'ERROR';
  if (status >= 400) return 'WARN';
  return 'INFO';
}

/**
 * nginx `combined` / Apache `combined` and `common` access logs (with anything nginx appends after the
 * user agent). Time from `[05/Dec/2026:10:15:03 +0800]`; the level from the status (5xx ERROR, 4xx WARN,
 * else INFO); fields client, method, path (without the query string), status, bytes. The message is
 * the line without its timestamp.
 */
export const COMBINED_FORMAT: LogFormat = {
  id: 'combined',
  name: 'nginx/Apache combined access log',
  topic: 'ACCESS',
  parse(line, context) {
    const m = COMBINED.exec(line);
    if (!m) return 'NOT_THIS_FORMAT';
    const [, client, , user, day, mon, year, hour, minute, second, zone, request, status, bytes] = m;
    const wall = wallTimeToUtc('UTC', +year, monthOf(mon), +day, +hour, +minute, +second, 0);
    const offset = zone ? (zone[0] === '-' ? -1 : 1) * (+zone.slice(1, 3) * 60 + +zone.slice(3, 5)) : null;
    const at =
      offset === null
        ? wallTimeToUtc(context.timeZone, +year, monthOf(mon), +day, +hour, +minute, +second, 0)
        : wall - offset * 60_000;
    if (!Number.isFinite(at)) return 'NO_TIMESTAMP';
    const [method, target] = request.split(' ');
    const fields: Record<string, string> = { client, status };
    if (user !== '-') fields.user = user;
    if (bytes !== '-') fields.bytes = bytes;
    if (method && target) {
      fields.method = method;
      fields.path = target.split('?')[0];
    }
    const code = Number(status);
    return {
      at,
      level: Number.isFinite(code) ? levelOfStatus(code) : 'INFO',
      levelFrom: Number.isFinite(code) ? 'INFERRED' : 'DEFAULT',
      unknownLevel: false,
      service: null,
      message: line.replace(/ \[[^\]]+\] /, ' '),
      fields,
    };
  },
};
