import { ConfigValidationError } from '@app/config';
import { parseMetricsToolsConfig } from './metrics-tools-config';

const file = (source: string) =>
  `harness:\n  metrics-tools:\n    data-sources:\n      prod:\n${source
    .split('\n')
    .map((line) => `        ${line}`)
    .join('\n')}\n`;

describe('parseMetricsToolsConfig', () => {
  it('reads a data source with its allowlisted selectors, token reference and redacted labels', () => {
    const [source] = parseMetricsToolsConfig(
      file(
        'url: ${PROM_URL}\nbearer-token: ${PROM_TOKEN}\nallowed-metrics: [up, \'http_requests_total{job="api"}\']\nredact-labels: [instance]',
      ),
      'metrics.yaml',
      { PROM_URL: 'http://prom:9090/prefix', PROM_TOKEN: 't0k' },
    );
    expect(source).toMatchObject({
      id: 'prod',
      baseUrl: 'http://prom:9090/prefix/',
      bearerToken: 't0k',
      allowlistText: ['up', 'http_requests_total{job="api"}'],
    });
    expect(source.allowlist[1]).toEqual({
      metric: 'http_requests_total',
      requiredMatchers: new Map([['job', 'api']]),
    });
    expect([...source.redactLabels]).toEqual(['instance']);
  });

  it.each([
    ['a literal token', 'url: http://p:9090\nbearer-token: secret\nallowed-metrics: [up]', 'bearer-token'],
    ['an unset url variable', 'url: ${NOPE}\nallowed-metrics: [up]', 'NOPE is not set'],
    ['credentials in the url', 'url: http://u:p@p:9090\nallowed-metrics: [up]', 'without credentials'],
    ['a non-http url', 'url: ftp://p\nallowed-metrics: [up]', 'url'],
    ['an empty allowlist', 'url: http://p:9090\nallowed-metrics: []', 'allowed-metrics'],
    [
      'a regex allowlist entry',
      'url: http://p:9090\nallowed-metrics: [\'up{job=~".*"}\']',
      'allowed-metrics.0',
    ],
    ['an unknown key', 'url: http://p:9090\nallowed-metrics: [up]\nextra: 1', 'extra'],
  ])('stops start-up on %s, naming the key', (_name, source, fragment) => {
    const parse = () => parseMetricsToolsConfig(file(source), 'metrics.yaml', {});
    expect(parse).toThrow(ConfigValidationError);
    expect(parse).toThrow(new RegExp(fragment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  });
});
