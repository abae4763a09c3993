import { DeclaredLabel, MetricDefinition, METRICS } from './metric-catalog';

export const REFERENCE_BEGIN = '<!-- metrics-reference:begin (generated: npm run docs:generate) -->';
export const REFERENCE_END = '<!-- metrics-reference:end -->';

const isDeclared = (values: readonly string[] | DeclaredLabel): values is DeclaredLabel =>
  !Array.isArray(values);

function labelLine(name: string, values: readonly string[] | DeclaredLabel): string {
  if (isDeclared(values)) return `  - \`${name}\`: ${values.declaredBy}`;
  return `  - \`${name}\`: ${values.map((value) => `\`${value}\``).join(', ')}`;
}

function section(definition: MetricDefinition): string {
  const labels = Object.entries(definition.labels);
  const lines = [
    `### \`${definition.name}\` (${definition.type})`,
    '',
    definition.help,
    '',
    labels.length ? '- Labels:' : '- Labels: none',
    ...labels.map(([name, values]) => labelLine(name, values)),
  ];
  if (definition.buckets) lines.push(`- Buckets (seconds): ${definition.buckets.join(', ')}`);
  return lines.join('\n');
}

/** The generated part of docs/metrics.md: every metric of METRICS with its type, labels and meaning. */
export function renderMetricsReference(): string {
  return [
    REFERENCE_BEGIN,
    '',
    ...(Object.values(METRICS) as MetricDefinition[]).map((definition) => `${section(definition)}\n`),
    REFERENCE_END,
  ].join('\n');
}

/** `document` with its generated section (between the markers) replaced by the current reference. */
export function replaceMetricsReference(document: string): string {
  const begin = document.indexOf(REFERENCE_BEGIN);
  const end = document.indexOf(REFERENCE_END);
  if (begin < 0 || end < begin) throw new Error('docs/metrics.md lacks the metrics-reference markers');
  return document.slice(0, begin) + renderMetricsReference() + document.slice(end + REFERENCE_END.length);
}
