import { readFixture, summary } from '@test/support/log-fixtures';
import { ECS_JSON_FORMAT } from './ecs-json.format';
import { contextOf } from '@test/support/log-fixtures';

describe('ECS JSON', () => {
  const read = readFixture('ecs/order-service.json');

  it('is detected', () => expect(read.format).toBe('ecs-json'));

  it.each([
    [0, ['2026-12-05T02:14:58.120Z', 'INFO', 'order-service', 'Order ORD-20261205-004217 created amount']],
    [1, ['2026-12-05T02:15:03.451Z', 'ERROR', 'order-service', 'Payment call failed for order ORD-202612']],
    [2, ['2026-12-05T02:15:04.002Z', 'WARN', 'order-service', 'Retrying payment for ORD-20261205-004217']],
  ])('record %i: dotted and nested fields', (index, expected) => {
    expect(summary(read.records[index], expected)).toEqual(expected);
  });

  it('appends the error type, message and stack trace; maps the trace id', () => {
    expect(read.records[1].message).toContain('[java.net.SocketTimeoutException: Read timed out]');
    expect(read.records[1].message).toContain('at com.shop.order.PaymentClient.charge');
    expect(read.records[1].fields.trace_id).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  });

  it.each([
    ['{"@timestamp":"2026-12-05T02:00:00Z","level":"INFO","message":"x"}', 'NOT_THIS_FORMAT'],
    ['not json', 'NOT_JSON'],
    ['{"@timestamp":"yesterday","log.level":"INFO","message":"x"}', 'NO_TIMESTAMP'],
  ])('refuses %s', (line, reason) => expect(ECS_JSON_FORMAT.parse(line, contextOf())).toBe(reason));
});
