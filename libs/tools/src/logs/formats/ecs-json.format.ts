import {
  COMMON_FIELDS,
  fieldOf,
  firstField,
  jsonObjectOf,
  mappedFields,
  recordOf,
  textField,
} from './json-fields';
import type { LogFormat } from './log-format';

const ECS_FIELDS = {
  ...COMMON_FIELDS,
  status: ['http.response.status_code'],
  path: ['url.path', 'url.original'],
  method: ['http.request.method'],
  trace_id: ['trace.id'],
  transaction_id: ['transaction.id'],
  error_type: ['error.type'],
  dataset: ['event.dataset'],
};

/**
 * Elastic Common Schema JSON (ecs-logging for Java/Node/Python/Go, Filebeat output): `@timestamp`,
 * `log.level`, `service.name`, `message`, dotted or nested. An `error.type`/`error.message` not already in
 * the message is appended to it, and `error.stack_trace` after it, so the failure is searchable.
 */
export const ECS_JSON_FORMAT: LogFormat = {
  id: 'ecs-json',
  name: 'ECS JSON (Elastic Common Schema)',
  parse(line, context) {
    const record = jsonObjectOf(line);
    if (!record) return 'NOT_JSON';
    const marked = fieldOf(record, 'ecs.version') !== undefined || fieldOf(record, 'log.level') !== undefined;
    if (!marked || fieldOf(record, '@timestamp') === undefined) return 'NOT_THIS_FORMAT';
    let message = textField(record, ['message']);
    const error = [textField(record, ['error.type']), textField(record, ['error.message'])]
      .filter((part): part is string => part !== null && !(message ?? '').includes(part))
      .join(': ');
    if (error) message = message ? `${message} [${error}]` : error;
    const stack = textField(record, ['error.stack_trace']);
    if (stack && message) message = `${message}\n${stack}`;
    return recordOf(
      {
        at: firstField(record, ['@timestamp']),
        level: firstField(record, ['log.level']),
        service: textField(record, ['service.name', 'event.dataset', 'process.name']),
        message,
      },
      context.timeZone,
      mappedFields(record, ECS_FIELDS),
    );
  },
};
