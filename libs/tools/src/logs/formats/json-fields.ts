import { levelOf } from './levels';
import type { LogRecord, UnreadableReason } from './log-format';
import { timestampOf } from './timestamps';

export type JsonObject = Record<string, unknown>;

/**
 * A JSON number's text JavaScript may print otherwise in a way that changes its runs of digits: an
 * exponent (`5.04e2` is 504), 16 or more digits with or without a point (rounded past 15-17
 * significant digits), six zeros after the point (below 1e-6 it prints `1e-7`). On a line, the same test
 * decides whether the line is scanned for such numbers at all.
 */
const PRINTS_OTHERWISE = /[eE]|[\d.]{16}|\.0{6}/;
const MAY_HOLD_SUCH_NUMBER = /\d[eE]|[\d.]{16}|\.0{6}/;
const JSON_NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
/** After a number: whitespace, `,`, `}`, `]` or the end (anything else leaves invalid JSON invalid). */
const endsNumber = (char: number) =>
  Number.isNaN(char) ||
  char === 44 ||
  char === 125 ||
  char === 93 ||
  char === 32 ||
  char === 9 ||
  char === 10 ||
  char === 13;

/**
 * The JSON text with every number in a value position that JavaScript may print otherwise (see
 * PRINTS_OTHERWISE) turned into a string of the number as written, so an id is searched as the line
 * holds it. Strings are left as they are (a scan that knows where each string starts and ends), and
 * invalid JSON stays invalid: only a complete JSON number after `:`, or in an array, is changed.
 */
export function numbersAsWritten(text: string): string {
  let out = '';
  let copied = 0;
  const containers: number[] = [];
  // The last character outside strings and whitespace: tells a value position from a key's.
  let previous = 0;
  for (let at = 0; at < text.length; at += 1) {
    const char = text.charCodeAt(at);
    if (char === 34) {
      // A string: skip to its closing quote (a backslash escapes the character after it).
      for (at += 1; at < text.length && text.charCodeAt(at) !== 34; at += 1) {
        if (text.charCodeAt(at) === 92) at += 1;
      }
      previous = 34;
      continue;
    }
    if (char === 123 || char === 91) containers.push(char);
    else if (char === 125 || char === 93) containers.pop();
    const inValue = previous === 58 || ((previous === 91 || previous === 44) && containers.at(-1) === 91);
    if (inValue && (char === 45 || (char >= 48 && char <= 57))) {
      JSON_NUMBER.lastIndex = at;
      const number = JSON_NUMBER.exec(text)?.[0] ?? '';
      if (number !== '' && endsNumber(text.charCodeAt(at + number.length)) && PRINTS_OTHERWISE.test(number)) {
        out += `${text.slice(copied, at)}"${number}"`;
        copied = at + number.length;
      }
      at += Math.max(0, number.length - 1);
      previous = 48;
      continue;
    }
    if (char > 32) previous = char;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** A line as a JSON object, or null (not JSON, or JSON that is not an object). */
export function jsonObjectOf(line: string): JsonObject | null {
  const text = line.trim();
  if (!text.startsWith('{')) return null;
  try {
    const value: unknown = JSON.parse(MAY_HOLD_SUCH_NUMBER.test(text) ? numbersAsWritten(text) : text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as JsonObject)
      : null;
  } catch {
    return null;
  }
}

/** A field by name, or by dotted path (`log.level`) when no top-level key has that exact name. */
export function fieldOf(record: JsonObject, name: string): unknown {
  if (name in record) return record[name];
  // Most names tried are plain keys a record lacks: no path to split.
  if (!name.includes('.')) return undefined;
  let value: unknown = record;
  for (const part of name.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as JsonObject)[part];
  }
  return value;
}

export const present = (value: unknown) => value !== undefined && value !== null && value !== '';

/** The first of `names` with a present value, with the name it was found under. */
export function firstField(
  record: JsonObject,
  names: readonly string[],
  usable: (value: unknown) => boolean = present,
): { name: string; value: unknown } | null {
  for (const name of names) {
    const value = fieldOf(record, name);
    if (usable(value)) return { name, value };
  }
  return null;
}

/** A scalar as text; objects and arrays as JSON (a message that is an object stays readable). */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '';
}

/** The first present field of `names`, as text, or null. */
export function textField(record: JsonObject, names: readonly string[]): string | null {
  const found = firstField(record, names);
  return found ? textOf(found.value) : null;
}

/** The mapped structured values that are present (filter and search keys -> field names tried in order). */
export function mappedFields(
  record: JsonObject,
  map: Record<string, readonly string[]>,
): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [key, names] of Object.entries(map)) {
    const value = textField(record, names);
    if (value !== null && value.length <= 2000) fields[key] = value;
  }
  return fields;
}

/** Field names most JSON loggers use for request/trace ids, HTTP status, path and method, host. */
export const COMMON_FIELDS: Record<string, readonly string[]> = {
  status: [
    'status',
    'status_code',
    'statusCode',
    'http.response.status_code',
    'res.statusCode',
    'http_status',
  ],
  path: ['path', 'url.path', 'req.url', 'request_path', 'uri', 'url'],
  method: ['method', 'http.request.method', 'req.method', 'http_method'],
  request_id: ['request_id', 'requestId', 'reqId', 'req_id', 'http.request.id', 'x_request_id'],
  trace_id: ['trace_id', 'traceId', 'trace.id', 'transaction.id', 'span.id', 'correlation_id'],
  host: ['host.name', 'hostname', 'host', 'HOSTNAME'],
};

export interface JsonMapping {
  at: { name: string; value: unknown } | null;
  level: { name: string; value: unknown } | null;
  service: string | null;
  message: string | null;
}

/** A JSON record as a LogRecord from its mapped roles, or the reason it is not one. */
export function recordOf(
  mapping: JsonMapping,
  timeZone: string,
  fields: Record<string, string>,
): LogRecord | UnreadableReason {
  if (!mapping.at) return 'NO_TIMESTAMP';
  const at = timestampOf(mapping.at.value, timeZone);
  if (!Number.isFinite(at)) return 'NO_TIMESTAMP';
  if (mapping.message === null || mapping.message === '') return 'NO_MESSAGE';
  const level = mapping.level ? levelOf(mapping.level.value) : null;
  return {
    at,
    level: level ?? 'INFO',
    levelFrom: level ? 'RECORD' : 'DEFAULT',
    unknownLevel: mapping.level !== null && level === null,
    service: mapping.service,
    message: mapping.message,
    fields,
  };
}
