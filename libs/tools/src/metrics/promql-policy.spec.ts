import { checkPromql, durationSeconds, parseAllowedSelector } from './promql-policy';

const allowlist = ['hikaricp_connections_active', 'http_requests_total{job="order-service"}'].map(
  parseAllowedSelector,
);
const limits = { maxLookbackSeconds: 3600, minStepSeconds: 15 };

describe('checkPromql', () => {
  it.each([
    ['a bare allowlisted metric', 'hikaricp_connections_active', ['hikaricp_connections_active']],
    [
      'an aggregate over a rate with the required matcher',
      'sum by (code) (rate(http_requests_total{job="order-service", code=~"5.."}[5m]))',
      ['http_requests_total'],
    ],
    [
      'the quoted-name form',
      '{"hikaricp_connections_active", pool="order"}',
      ['hikaricp_connections_active'],
    ],
    [
      'an exact __name__ matcher',
      '{__name__="hikaricp_connections_active"}',
      ['hikaricp_connections_active'],
    ],
    [
      'a subquery within bounds',
      'max_over_time(hikaricp_connections_active[30m:1m])',
      ['hikaricp_connections_active'],
    ],
    ['a bounded offset', 'hikaricp_connections_active offset 30m', ['hikaricp_connections_active']],
    [
      'a binary expression of two allowed metrics',
      'hikaricp_connections_active / on() group_left sum(rate(http_requests_total{job=`order-service`}[1m]))',
      ['hikaricp_connections_active', 'http_requests_total'],
    ],
  ])('allows %s', (_name, query, metrics) => {
    expect(checkPromql(query, allowlist, limits)).toEqual({ allowed: true, metrics });
  });

  it.each([
    ['an unclosed brace', 'hikaricp_connections_active{', 'PROMQL_INVALID'],
    ['an unknown function', 'nosuchfn(hikaricp_connections_active)', 'PROMQL_INVALID'],
    ['a metric off the allowlist', 'node_cpu_seconds_total', 'METRIC_NOT_ALLOWED'],
    ['an allowed and a forbidden metric', 'hikaricp_connections_active + up', 'METRIC_NOT_ALLOWED'],
    ['a selector by labels alone', '{job="order-service"}', 'METRIC_NOT_ALLOWED'],
    ['a __name__ regex', '{__name__=~"hikari.*"}', 'METRIC_NOT_ALLOWED'],
    ['a missing required matcher', 'rate(http_requests_total[5m])', 'METRIC_NOT_ALLOWED'],
    ['a required matcher as a regex', 'http_requests_total{job=~"order-service"}', 'METRIC_NOT_ALLOWED'],
    ['a required matcher with another value', 'http_requests_total{job="billing"}', 'METRIC_NOT_ALLOWED'],
    ['no metric at all', '1 + 1', 'METRIC_NOT_ALLOWED'],
    ['a range past the lookback', 'rate(hikaricp_connections_active[2h])', 'PROMQL_NOT_ALLOWED'],
    ['an offset past the lookback', 'hikaricp_connections_active offset 90m', 'PROMQL_NOT_ALLOWED'],
    ['a negative offset past the lookback', 'hikaricp_connections_active offset -2h', 'PROMQL_NOT_ALLOWED'],
    [
      'a subquery finer than the minimum step',
      'max_over_time(hikaricp_connections_active[30m:1s])',
      'PROMQL_NOT_ALLOWED',
    ],
    ['a subquery without a step', 'max_over_time(hikaricp_connections_active[30m:])', 'PROMQL_NOT_ALLOWED'],
    ['the @ modifier', 'hikaricp_connections_active @ 1700000000', 'PROMQL_NOT_ALLOWED'],
    ['an over-long query', `hikaricp_connections_active${' '.repeat(2000)}`, 'PROMQL_INVALID'],
  ])('refuses %s', (_name, query, code) => {
    const verdict = checkPromql(query, allowlist, limits);
    expect(verdict).toMatchObject({ allowed: false, code });
    expect(verdict.allowed ? '' : verdict.message).not.toHaveLength(0);
  });
});

describe('durationSeconds', () => {
  it.each<[string, number | null]>([
    ['5m', 300],
    ['1h30m', 5400],
    ['500ms', 0.5],
    ['90', 90],
    ['1d', 86_400],
    ['5x', null],
    ['m5', null],
  ])('%s -> %s', (text, seconds) => expect(durationSeconds(text)).toBe(seconds));
});

describe('parseAllowedSelector', () => {
  it('reads a metric with its required exact matchers', () => {
    const entry = parseAllowedSelector('http_requests_total{job="order-service", env="prod"}');
    expect(entry.metric).toBe('http_requests_total');
    expect([...entry.requiredMatchers]).toEqual([
      ['job', 'order-service'],
      ['env', 'prod'],
    ]);
  });

  it.each([
    ['a regex matcher', 'http_requests_total{job=~"o.*"}'],
    ['no metric name', '{job="x"}'],
    ['an expression', 'rate(x[5m])'],
    ['not PromQL', 'x{'],
  ])('refuses %s', (_name, entry) => expect(() => parseAllowedSelector(entry)).toThrow());
});
