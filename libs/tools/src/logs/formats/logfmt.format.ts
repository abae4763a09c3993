import * as logfmt from 'logfmt';
import { COMMON_FIELDS, firstField, mappedFields, recordOf, textField } from './json-fields';
import type { LogFormat } from './log-format';

const TIME = ['time', 'ts', 'timestamp', 't', '@timestamp', 'datetime'];
const LEVEL = ['level', 'lvl', 'severity', 'loglevel'];
const SERVICE = ['service', 'svc', 'app', 'application', 'component'];
const MESSAGE = ['msg', 'message'];
const ROLES = new Set([...TIME, ...LEVEL, ...SERVICE, ...MESSAGE]);

/**
 * A value's text as the line holds it: the package reads a bare key and `k=true` as true, `k=` as null
 * (neither holds text to search), `k=false` as false.
 */
const writtenText = (value: string | boolean | null) =>
  typeof value === 'string' ? value : value === false ? 'false' : '';

/**
 * A pair as logfmt writes it: a bare key alone, an empty value as `key=`, a value quoted when it has a
 * space, `=`, a quote or a backslash (only those two escaped): the text invents no letters the line lacks.
 */
const pair = (key: string, value: string | boolean | null) => {
  if (value === true) return key;
  const text = writtenText(value);
  return /[\s="\\]/.test(text) ? `${key}="${text.replace(/["\\]/g, '\\$&')}"` : `${key}=${text}`;
};

/**
 * logfmt (Go's log/slog TextHandler, logrus text, Heroku, Grafana tools): `time=… level=… msg="…" k=v`,
 * parsed by the `logfmt` package. The message is `msg` followed by the other pairs, so ids written as
 * their own keys stay visible and searchable.
 */
export const LOGFMT_FORMAT: LogFormat = {
  id: 'logfmt',
  name: 'logfmt',
  parse(line, context) {
    const text = line.trim();
    if (!/^[\w.@-]+=/.test(text)) return 'NOT_THIS_FORMAT';
    const parsed = logfmt.parse(text) as Record<string, string | boolean | null>;
    const keys = Object.keys(parsed);
    if (keys.length < 2 || !keys.some((key) => TIME.includes(key))) return 'NOT_THIS_FORMAT';
    const rest = keys.filter((key) => !ROLES.has(key)).map((key) => pair(key, parsed[key]));
    const record = Object.fromEntries(keys.map((key) => [key, writtenText(parsed[key])]));
    const msg = textField(record, MESSAGE);
    const message = [msg, ...rest].filter((part): part is string => !!part).join(' ');
    return recordOf(
      {
        at: firstField(record, TIME),
        level: firstField(record, LEVEL),
        service: textField(record, SERVICE),
        message: message === '' ? null : message,
      },
      context.timeZone,
      mappedFields(record, COMMON_FIELDS),
    );
  },
};
