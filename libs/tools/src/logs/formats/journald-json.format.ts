import { COMMON_FIELDS, firstField, jsonObjectOf, mappedFields, recordOf, textField } from './json-fields';
import type { LogFormat } from './log-format';

/** journald writes MESSAGE as an array of bytes when it is not valid UTF-8 or holds control characters. */
function messageOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((byte) => Number.isInteger(byte) && byte >= 0 && byte < 256)) {
    return Buffer.from(value as number[]).toString('utf8');
  }
  return null;
}

/** The unit's name without `.service`; scopes and the system slices say less than the identifier. */
function serviceOf(unit: string | null, identifier: string | null, command: string | null): string | null {
  if (unit && unit.endsWith('.service')) return unit.slice(0, -'.service'.length);
  return identifier ?? command ?? unit;
}

/**
 * `journalctl -o json` (and `-o json-seq` lines without the record separator): `__REALTIME_TIMESTAMP`
 * (µs), `PRIORITY` (syslog 0-7), `MESSAGE`, the service from `_SYSTEMD_UNIT` (`payment.service` ->
 * `payment`), else `SYSLOG_IDENTIFIER`, else `_COMM`.
 */
export const JOURNALD_JSON_FORMAT: LogFormat = {
  id: 'journald-json',
  name: 'journald JSON (journalctl -o json)',
  parse(line, context) {
    const record = jsonObjectOf(line.startsWith('\u001e') ? line.slice(1) : line);
    if (!record) return 'NOT_JSON';
    if (!('__REALTIME_TIMESTAMP' in record) || !('MESSAGE' in record)) return 'NOT_THIS_FORMAT';
    const fields = mappedFields(record, {
      ...COMMON_FIELDS,
      host: ['_HOSTNAME'],
      pid: ['_PID'],
      unit: ['_SYSTEMD_UNIT'],
    });
    return recordOf(
      {
        at: firstField(record, ['__REALTIME_TIMESTAMP']),
        level: firstField(record, ['PRIORITY']),
        service: serviceOf(
          textField(record, ['_SYSTEMD_UNIT']),
          textField(record, ['SYSLOG_IDENTIFIER']),
          textField(record, ['_COMM']),
        ),
        message: messageOf(record.MESSAGE),
      },
      context.timeZone,
      fields,
    );
  },
};
