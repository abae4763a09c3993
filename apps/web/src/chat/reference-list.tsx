import { hrefOf } from '../router';
import type { Reference } from '@app/contracts';
import { TableScroll } from '../ui/feedback';
import { excerptsOf, ReferenceExcerpt } from './reference-excerpts';

/** A small line of the series' trend; the figures beside it carry the numbers for screen readers. */
function Sparkline({ values }: { values: number[] }) {
  if (values.length < 2) return null;
  // Counts and gauges are drawn from zero: scaled to their own range, a pool wobbling between 4 and 6
  // connections looked as alarming as one jumping from 10 to 50. Negative series keep their own minimum.
  const min = Math.min(0, ...values);
  const span = Math.max(...values) - min;
  const yOf = (value: number) => (span === 0 ? 22 : 22 - ((value - min) / span) * 20);
  const points = values
    .map((value, index) => `${(index / (values.length - 1)) * 100},${yOf(value)}`)
    .join(' ');
  return (
    <svg class="sparkline" viewBox="0 0 100 24" preserveAspectRatio="none" aria-hidden="true">
      <polyline
        points={points}
        fill="none"
        stroke="currentColor"
        stroke-width="1.5"
        vector-effect="non-scaling-stroke"
      />
    </svg>
  );
}

export const referenceAnchor = (prefix: string, referenceId: number) => `${prefix}-ref-${referenceId}`;

export function focusReference(prefix: string, referenceId: number) {
  const target = document.getElementById(referenceAnchor(prefix, referenceId));
  target?.scrollIntoView({ behavior: 'smooth', block: 'center' });
  target?.focus({ preventScroll: true });
}

/** Name-value pairs, as a series' figures or an excerpt's fields. */
function FieldList({ class: className, fields }: { class: string; fields: [string, string][] }) {
  return (
    <dl class={className}>
      {fields.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function Excerpt({ excerpt }: { excerpt: ReferenceExcerpt }) {
  switch (excerpt.kind) {
    case 'document':
      return (
        <figure class="excerpt">
          <figcaption>
            {excerpt.title}
            {excerpt.breadcrumb && <span class="breadcrumb"> · {excerpt.breadcrumb}</span>}
          </figcaption>
          <blockquote>{excerpt.text}</blockquote>
        </figure>
      );
    case 'log-pattern':
      return (
        <p class="excerpt log">
          <span class={`level level-${excerpt.level.toLowerCase()}`}>{excerpt.level}</span> {excerpt.service}{' '}
          · {excerpt.count}× · last {excerpt.lastSeen}
          <code class="log-line">{excerpt.example}</code>
        </p>
      );
    case 'log-event':
      return (
        <p class="excerpt log">
          <span class={`level level-${excerpt.level.toLowerCase()}`}>{excerpt.level}</span> {excerpt.service}{' '}
          · {excerpt.timestamp}
          <code class="log-line">{excerpt.message}</code>
        </p>
      );
    case 'table':
      return (
        <TableScroll label="Query result">
          <table>
            <thead>
              <tr>
                {excerpt.columns.map((column) => (
                  <th scope="col" key={column}>
                    {column}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {excerpt.rows.map((row, index) => (
                <tr key={index}>
                  {row.map((cell, column) => (
                    <td key={column}>{cell}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
          {excerpt.hiddenRows > 0 && <p class="hint">and {excerpt.hiddenRows} more rows</p>}
        </TableScroll>
      );
    case 'series':
      return (
        <figure class="excerpt series">
          <figcaption>
            <code>{excerpt.name}</code>
          </figcaption>
          <div class="series-row">
            <Sparkline values={excerpt.trend} />
            <FieldList class="fields" fields={excerpt.figures} />
          </div>
          {excerpt.changes.length > 0 && <p class="hint">largest changes: {excerpt.changes.join('; ')}</p>}
        </figure>
      );
    case 'fields':
      return <FieldList class="excerpt fields" fields={excerpt.fields} />;
  }
}

/** The numbered evidence list the analysis cites: source, scope, status and the exact excerpts. */
export function ReferenceList({
  references,
  anchorPrefix,
  trace,
}: {
  references: Reference[];
  anchorPrefix: string;
  trace?: { sessionId: string; runId: string };
}) {
  if (references.length === 0) return <p class="hint">No references.</p>;
  return (
    <ol class="references">
      {references.map((reference) => (
        <li
          key={reference.reference_id}
          id={referenceAnchor(anchorPrefix, reference.reference_id)}
          tabIndex={-1}
          class="reference"
        >
          <p class="reference-head">
            <span class="reference-number">[{reference.reference_id}]</span>{' '}
            <span class="badge">{reference.source_type}</span> {reference.source}
            {reference.evidence_status === 'NO_EVIDENCE' && (
              <span class="badge muted">no matching evidence</span>
            )}
            {reference.truncated && <span class="badge muted">truncated</span>}
            {trace && (
              <a
                class="trace-link"
                href={hrefOf({ page: 'runs', ...trace, reference: reference.reference_id })}
              >
                tool call in the trace
              </a>
            )}
          </p>
          {reference.scope && <p class="scope">{reference.scope}</p>}
          {excerptsOf(reference).map((excerpt, index) => (
            <Excerpt key={index} excerpt={excerpt} />
          ))}
        </li>
      ))}
    </ol>
  );
}
