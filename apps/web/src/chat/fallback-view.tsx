import type { Fallback } from '@app/contracts';
import { FALLBACK_LABELS } from '@app/contracts';

/** The fixed safe answer when no report could be verified: never mistaken for a diagnosis. */
export function FallbackView({ fallback }: { fallback: Fallback }) {
  return (
    <article class="fallback" aria-label="No verified diagnosis">
      <p class="fallback-label">
        <strong>No verified diagnosis</strong> — fallback answer:{' '}
        {FALLBACK_LABELS[fallback.type] ?? fallback.type}
      </p>
      <p>{fallback.message}</p>
      {fallback.verified_sources.length > 0 && (
        <>
          <h3>What was verified</h3>
          <ul>
            {fallback.verified_sources.map((source, index) => (
              <li key={index}>
                <span class="badge">{source.source_type}</span> {source.source}
                {source.scope && <span class="scope"> — {source.scope}</span>}
              </li>
            ))}
          </ul>
        </>
      )}
      {fallback.limitations.length > 0 && (
        <>
          <h3>Limitations</h3>
          <ul>
            {fallback.limitations.map((item, index) => (
              <li key={index}>{item}</li>
            ))}
          </ul>
        </>
      )}
      {fallback.next_steps.length > 0 && (
        <>
          <h3>Next steps</h3>
          <ul>
            {fallback.next_steps.map((item, index) => (
              <li key={index}>{item}</li>
            ))}
          </ul>
        </>
      )}
    </article>
  );
}
