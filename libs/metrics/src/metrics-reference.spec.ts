import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MetricDefinition, METRICS } from './metric-catalog';
import { renderMetricsReference, replaceMetricsReference } from './metrics-reference';

const DOC = join(__dirname, '../../../docs/metrics.md');

describe('docs/metrics.md', () => {
  it('holds the reference of every metric as the catalog generates it (regenerate: npm run docs:generate)', () => {
    const document = readFileSync(DOC, 'utf8');
    expect(replaceMetricsReference(document)).toBe(document);
  });

  it('names every metric with its type and every label', () => {
    const reference = renderMetricsReference();
    for (const definition of Object.values(METRICS) as MetricDefinition[]) {
      expect(reference).toContain(`### \`${definition.name}\` (${definition.type})`);
      for (const label of Object.keys(definition.labels)) expect(reference).toContain(`- \`${label}\`: `);
    }
  });

  it('refuses a page without the markers rather than appending somewhere', () => {
    expect(() => replaceMetricsReference('# Metrics\n')).toThrow(/markers/);
  });
});
