import { containsTerm, matchesLogQuery, parseLogQuery, passesFilters } from './log-match';

const access = {
  service: 'nginx',
  level: 'ERROR' as const,
  message: '10.0.1.16 - - "POST /api/v1/payments HTTP/1.1" 504 167 "-" "okhttp/4.12.0" 30.001',
  fields: { status: '504', path: '/api/v1/payments', method: 'POST' },
};
const ok = {
  ...access,
  level: 'INFO' as const,
  message: access.message.replace(' 504 ', ' 200 '),
  fields: { ...access.fields, status: '200' },
};
const app = {
  service: 'payment-service',
  level: 'WARN' as const,
  message: 'HikariPool-1 - Connection is not available, request timed out after 30000ms',
  fields: { request_id: 'a1b2c3' },
};

describe('parseLogQuery', () => {
  it.each([
    ['/api/v1/payments 504', ['/api/v1/payments', '504'], []],
    ['payment-service error', ['payment-service', 'error'], []],
    ['"connection is not available" -debug', ['connection is not available'], ['debug']],
    ['-"health check" Timeout timeout', ['timeout'], ['health check']],
    ['  - "" ', [], []],
    ['连接池 耗尽', ['连接池', '耗尽'], []],
  ])('%s', (query, include, exclude) => expect(parseLogQuery(query)).toEqual({ include, exclude }));
});

describe('containsTerm', () => {
  it.each([
    ['status 504 after', '504', true],
    ['sent 15043 bytes', '504', false],
    ['request timeouts', 'timeout', false],
    ['payment-service-v2 up', 'payment-service', true],
    ['hikaripool-1 - connection', 'hikaripool-1', true],
    ['数据库连接池耗尽了', '连接池', true],
    ['post /api/v1/payments?x=1', '/api/v1/payments', true],
  ])('%s has %s: %s', (text, term, expected) => expect(containsTerm(text, term)).toBe(expected));
});

describe('matchesLogQuery', () => {
  it.each([
    // every term must occur: the 200 line does not match "/api/v1/payments 504"
    ['/api/v1/payments 504', {}, [true, false, false]],
    ['payment-service timed out', {}, [false, false, true]],
    ['"timed out after"', {}, [false, false, true]],
    ['/api/v1/payments -504', {}, [false, true, false]],
    // the level, service and mapped fields are searched like the message
    ['error nginx', {}, [true, false, false]],
    ['a1b2c3', {}, [false, false, true]],
    ['', { status: '5xx' }, [true, false, false]],
    ['', { status: '200' }, [false, true, false]],
    ['', { path: '/api/v1/pay' }, [true, true, false]],
    ['', { level: 'WARN' as const }, [true, false, true]],
    ['', { service: 'PAYMENT-SERVICE' }, [false, false, true]],
  ])('%s %j', (query, filters, expected) =>
    expect([access, ok, app].map((record) => matchesLogQuery(record, parseLogQuery(query), filters))).toEqual(
      expected,
    ),
  );

  it('a record without the field a filter reads does not pass it', () =>
    expect(passesFilters({ service: 's', level: 'INFO', message: 'm' }, { status: '500' })).toBe(false));
});
