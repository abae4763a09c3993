import {
  COMMON_FIELDS,
  fieldOf,
  firstField,
  jsonObjectOf,
  mappedFields,
  recordOf,
  textField,
} from './json-fields';
import type { JsonObject } from './json-fields';
import type { LogFormat, LogRecord, UnreadableReason } from './log-format';
import { numericLevel } from './levels';

/** An `err` object's type, message and stack appended to the message (pino and bunyan serialise errors so). */
export function withError(message: string | null, record: JsonObject): string | null {
  const type = textField(record, ['err.type', 'err.name']);
  const text = textField(record, ['err.message']);
  const stack = textField(record, ['err.stack']);
  let out = message;
  const summary = [type, text].filter((part): part is string => part !== null && !(out ?? '').includes(part));
  if (summary.length > 0) out = out ? `${out} [${summary.join(': ')}]` : summary.join(': ');
  if (stack && out) out = `${out}\n${stack}`;
  return out;
}

const PINO_FIELDS = { ...COMMON_FIELDS, request_id: ['reqId', 'req.id', ...COMMON_FIELDS.request_id] };

/** A pino or bunyan line: numeric level, `msg`, `name` as the service. */
export function numericLevelRecord(record: JsonObject, timeZone: string): LogRecord | UnreadableReason {
  const level = fieldOf(record, 'level') as number;
  const read = recordOf(
    {
      at: firstField(record, ['time']),
      level: null,
      service: textField(record, ['name', 'service', 'app']),
      message: withError(textField(record, ['msg', 'message']), record),
    },
    timeZone,
    mappedFields(record, PINO_FIELDS),
  );
  if (typeof read === 'string') return read;
  return { ...read, level: numericLevel(level), levelFrom: 'RECORD' };
}

const isPinoLevel = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value >= 10;

/** pino: `{"level":30,"time":<epoch ms>,"pid","hostname","name"?,"msg"}`. */
export const PINO_JSON_FORMAT: LogFormat = {
  id: 'pino-json',
  name: 'pino JSON',
  parse(line, context) {
    const record = jsonObjectOf(line);
    if (!record) return 'NOT_JSON';
    // A time of 16 or more digits (nanoseconds) is read as written, as a string of digits (json-fields).
    const time = record.time;
    const numeric = typeof time === 'number' || (typeof time === 'string' && /^\d{16,}$/.test(time));
    if (!isPinoLevel(record.level) || !numeric) return 'NOT_THIS_FORMAT';
    return numericLevelRecord(record, context.timeZone);
  },
};

/** bunyan: `{"name","hostname","pid","level":30,"msg","time":"<ISO>","v":0}`. */
export const BUNYAN_JSON_FORMAT: LogFormat = {
  id: 'bunyan-json',
  name: 'bunyan JSON',
  parse(line, context) {
    const record = jsonObjectOf(line);
    if (!record) return 'NOT_JSON';
    if (record.v !== 0 || !isPinoLevel(record.level) || typeof record.name !== 'string') {
      return 'NOT_THIS_FORMAT';
    }
    return numericLevelRecord(record, context.timeZone);
  },
};
