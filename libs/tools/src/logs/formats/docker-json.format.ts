import { JSON_FORMAT } from './json.format';
import { fieldOf, jsonObjectOf, textField } from './json-fields';
import { embeddedLevel } from './levels';
import { isRecord, LogFormat, LogLevel, LogRecord, ParseContext } from './log-format';
import { LOGBACK_FORMAT } from './logback.format';
import { LOGFMT_FORMAT } from './logfmt.format';
import { timestampOf } from './timestamps';

/** A stack trace or wrapped-exception line, printed by the application as its own docker record. */
const STACK_LINE = /^(?:\s+at |\s*\.\.\. \d+ (?:more|common frames omitted)|Caused by: |\s+Suppressed: |\t)/;

/** What the application wrote inside `log`: a JSON, logfmt or pattern-text line, or free text. */
function innerOf(text: string, context: ParseContext): LogRecord | null {
  for (const format of [JSON_FORMAT, LOGFMT_FORMAT, LOGBACK_FORMAT]) {
    const read = format.parse(text, context);
    if (isRecord(read)) return read;
  }
  return null;
}

/**
 * Docker's json-file driver (`/var/lib/docker/containers/<id>/<id>-json.log`, and Kubernetes nodes using
 * it): `{"log":"…\n","stream":"stdout|stderr","time":"<RFC 3339 ns>","attrs"?}`. The time is Docker's
 * (always UTC). The line the application wrote is read as JSON, logfmt or pattern text when it is one
 * (its level, service and message), else its level is a level word written near its start, else the
 * stream's: stderr WARN, stdout INFO. The service is the application's, else `attrs.tag` or the compose
 * service label, else the file rule's. Stack trace lines continue the record before them.
 */
export const DOCKER_JSON_FORMAT: LogFormat = {
  id: 'docker-json',
  name: 'Docker json-file',
  parse(line, context) {
    const record = jsonObjectOf(line);
    if (!record) return 'NOT_JSON';
    const log = record.log;
    const stream = record.stream;
    if (typeof log !== 'string' || (stream !== 'stdout' && stream !== 'stderr') || !('time' in record)) {
      return 'NOT_THIS_FORMAT';
    }
    const at = timestampOf(record.time, 'UTC');
    if (!Number.isFinite(at)) return 'NO_TIMESTAMP';
    const text = log.replace(/\r?\n$/, '');
    if (text.trim() === '') return 'NO_MESSAGE';
    const inner = innerOf(text, context);
    const attrs = fieldOf(record, 'attrs');
    const label =
      typeof attrs === 'object' && attrs !== null
        ? textField(attrs as Record<string, unknown>, ['tag', 'com.docker.compose.service'])
        : null;
    const fields: Record<string, string> = { ...(inner?.fields ?? {}), stream };
    if (inner && inner.levelFrom !== 'DEFAULT') {
      return { ...inner, at, service: inner.service ?? label, fields };
    }
    const written = embeddedLevel(text);
    const byStream: LogLevel = stream === 'stderr' ? 'WARN' : 'INFO';
    return {
      at,
      level: written ?? byStream,
      levelFrom: 'INFERRED',
      unknownLevel: false,
      service: inner?.service ?? label,
      message: inner?.message ?? text,
      fields,
    };
  },
  continuation(line) {
    const record = jsonObjectOf(line);
    const log = record?.log;
    if (typeof log !== 'string') return null;
    const text = log.replace(/\r?\n$/, '');
    return STACK_LINE.test(text) ? text : null;
  },
};
