import * as logfmt from 'logfmt';
import { COMMON_FIELDS, firstField, mappedFields, recordOf, textField } from './json-fields';
import type { LogFormat } from './log-format';

const TIME = ['time', 'ts', 'timestamp', 't', '@timestamp', 'datetime'];
const LEVEL = ['level', 'lvl', 'severity', 'loglevel'];
const SERVICE = ['service', 'svc', 'app', 'application', 'component'];
const MESSAGE = ['msg', 'message'];
const ROLES = new Set([...TIME, ...LEVEL, ...SERVICE, ...MESSAGE]);

/** A value as logfmt writes it (quoted when it has a space, `=` or a quote). */
const pair = (key: string, value: unknown) => {
  const text = value === true ? '' : String(value);
  return value === true ? key : /[\s="]/.test(text) ? `${key}=${JSON.stringify(text)}` : `${key}=${text}`;
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
    const record = logfmt.parse(text) as Record<string, string | boolean>;
    const keys = Object.keys(record);
    if (keys.length < 2 || !keys.some((key) => TIME.includes(key))) return 'NOT_THIS_FORMAT';
    const rest = keys.filter((key) => !ROLES.has(key)).map((key) => pair(key, record[key]));
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
