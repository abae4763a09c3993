import { sanitizePlan } from './plan-sanitizer';

describe('sanitizePlan', () => {
  it.each<[string, string | null]>([
    [
      '1. check order-service logs\n2. look up the runbook\n3. check payment records',
      '1. check order-service logs\n2. look up the runbook\n3. check payment records',
    ],
    ['Plan:\n- logs\n- `db`', '1. logs\n2. db'],
    ['1. a\n2. b\n3. c\n4. d\n5. e\n6. f', '1. a\n2. b\n3. c\n4. d\n5. e'],
    [`1. ${'x'.repeat(200)}`, `1. ${'x'.repeat(119)}…`],
    ['1. run SELECT password FROM user_account WHERE id = 1', '1. 查询业务数据 / query business data'],
    ['1. use token=abc123 to call', '1. use token=[REDACTED] to call'],
    ['{"conclusion": null}', null],
    ['', null],
  ])('%s', (text, plan) => expect(sanitizePlan(text)).toBe(plan));
});
