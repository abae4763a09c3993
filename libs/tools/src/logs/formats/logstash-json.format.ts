import { COMMON_FIELDS, firstField, jsonObjectOf, mappedFields, recordOf, textField } from './json-fields';
import type { LogFormat } from './log-format';

/**
 * logstash JSON (logstash-logback-encoder, log4j2 JsonTemplateLayout's logstash template, Logstash
 * output): `@timestamp`, `@version`, `message`, `level`, `logger_name`; `stack_trace` joined to the message.
 * The service is a custom field (`service`, `app`, `app_name`, `application`), never the logger class.
 */
export const LOGSTASH_JSON_FORMAT: LogFormat = {
  id: 'logstash-json',
  name: 'logstash JSON (logstash-logback-encoder)',
  parse(line, context) {
    const record = jsonObjectOf(line);
    if (!record) return 'NOT_JSON';
    if (!('@version' in record) || !('@timestamp' in record)) return 'NOT_THIS_FORMAT';
    const message = textField(record, ['message']);
    const stack = textField(record, ['stack_trace', 'exception.stacktrace']);
    return recordOf(
      {
        at: firstField(record, ['@timestamp']),
        level: firstField(record, ['level', 'severity']),
        service: textField(record, ['service', 'service.name', 'app', 'app_name', 'appName', 'application']),
        message: message && stack ? `${message}\n${stack}` : message,
      },
      context.timeZone,
      mappedFields(record, { ...COMMON_FIELDS, logger: ['logger_name'], thread: ['thread_name'] }),
    );
  },
};
