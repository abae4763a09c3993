import {
  COMMON_FIELDS,
  firstField,
  jsonObjectOf,
  mappedFields,
  present,
  recordOf,
  textOf,
} from './json-fields';
import type { JsonFieldNames, LogFormat } from './log-format';
import { timestampOf } from './timestamps';

/**
 * What common JSON loggers write (logback/log4j JSON layouts, Python, Serilog, winston), so a JSON-lines
 * export is read without configuration; a file rule's `*_field` replaces its role's list for its files.
 */
export const DEFAULT_JSON_FIELDS: JsonFieldNames = {
  timestamp: ['@timestamp', 'timestamp', 'time', 'ts', 'datetime', 'date', '@t', 't'],
  level: ['level', 'lvl', 'severity', 'levelname', 'log.level', 'loglevel', '@l'],
  service: ['service', 'service.name', 'svc', 'app', 'application', 'logger', 'logger_name', 'name'],
  message: ['message', 'msg', 'log', '@m', '@mt'],
};

const isText = (value: unknown) => typeof value === 'string' && value !== '';

/** Generic JSON lines: each role read from the first field of its list that the line has. */
export const JSON_FORMAT: LogFormat = {
  id: 'json',
  name: 'JSON lines',
  parse(line, context) {
    const record = jsonObjectOf(line);
    if (!record) return 'NOT_JSON';
    const names = context.fields;
    const at = firstField(record, names.timestamp, (value) =>
      Number.isFinite(timestampOf(value, context.timeZone)),
    );
    const message = firstField(record, names.message, isText) ?? firstField(record, names.message, present);
    const service = firstField(record, names.service, isText);
    return recordOf(
      {
        at: at ?? firstField(record, names.timestamp),
        level: firstField(record, names.level),
        service: service ? textOf(service.value) : null,
        message: message ? textOf(message.value) : null,
      },
      context.timeZone,
      mappedFields(record, COMMON_FIELDS),
    );
  },
};
