import { MOCK_SCOPE_NOTE, type DiagnosisReport } from '@app/contracts';
import { focusReference, ReferenceList } from './reference-list';
import { usesMockData } from './reference-excerpts';

interface ReportProps {
  report: DiagnosisReport;
  /** Unique per turn, so several reports on one page keep distinct reference anchors. */
  anchorPrefix: string;
  /** The run that released the report, for each reference's link to its tool call in the trace. */
  trace?: { sessionId: string; runId: string };
}

/** The notice above says MOCK once; the server's copy of it at the end of the scope is not repeated. */
function withoutMockNote(scope: string): string {
  return scope.replace(MOCK_SCOPE_NOTE, '').trim() || '—';
}

function BasedOn({ ids }: { ids: string[] }) {
  if (ids.length === 0) return null;
  return <span class="based-on">based on {ids.join(', ')}</span>;
}

/**
 * A released diagnosis in the contract's fixed order: conclusion, analysis (with citations),
 * action plan, recommendations, limitations and scope, references.
 */
export function DiagnosisReportView({ report, anchorPrefix, trace }: ReportProps) {
  const mock = usesMockData(report.references);
  return (
    <article class="report" aria-label="Diagnosis report">
      <section class="report-section conclusion" aria-labelledby={`${anchorPrefix}-conclusion`}>
        <h3 id={`${anchorPrefix}-conclusion`}>Conclusion</h3>
        {report.conclusion ? (
          <p>
            {report.conclusion.text} <BasedOn ids={report.conclusion.based_on_analysis_ids} />
          </p>
        ) : (
          <p class="hint">No root cause could be confirmed from the evidence.</p>
        )}
      </section>

      <section class="report-section" aria-labelledby={`${anchorPrefix}-analysis`}>
        <h3 id={`${anchorPrefix}-analysis`}>Analysis</h3>
        <ol class="analysis">
          {report.analysis.map((item) => (
            <li key={item.analysis_id} data-analysis-id={item.analysis_id}>
              <span class="analysis-id">{item.analysis_id}</span>
              {item.kind === 'NEGATIVE_OBSERVATION' && <span class="badge muted">ruled out</span>} {item.text}{' '}
              {item.reference_ids.map((id) => (
                <button
                  type="button"
                  class="cite"
                  key={id}
                  aria-label={`Reference ${id}`}
                  onClick={() => focusReference(anchorPrefix, id)}
                >
                  [{id}]
                </button>
              ))}
            </li>
          ))}
        </ol>
      </section>

      <section class="report-section" aria-labelledby={`${anchorPrefix}-actions`}>
        <h3 id={`${anchorPrefix}-actions`}>Action plan</h3>
        {report.action_plan.length === 0 ? (
          <p class="hint">No actions proposed.</p>
        ) : (
          <ol class="actions-list">
            {report.action_plan.map((step, index) => (
              <li key={index} class={step.requires_human_confirmation ? 'needs-confirmation' : undefined}>
                {step.requires_human_confirmation && (
                  <strong class="badge warning">Needs human confirmation</strong>
                )}{' '}
                {step.action} <BasedOn ids={step.based_on_analysis_ids} />
              </li>
            ))}
          </ol>
        )}
      </section>

      <section class="report-section" aria-labelledby={`${anchorPrefix}-recommendations`}>
        <h3 id={`${anchorPrefix}-recommendations`}>Recommendations</h3>
        {report.recommendations.length === 0 ? (
          <p class="hint">No recommendations.</p>
        ) : (
          <ul>
            {report.recommendations.map((recommendation, index) => (
              <li key={index}>
                {recommendation.text} <BasedOn ids={recommendation.based_on_analysis_ids} />
              </li>
            ))}
          </ul>
        )}
      </section>

      <section class="report-section limitations" aria-labelledby={`${anchorPrefix}-limitations`}>
        <h3 id={`${anchorPrefix}-limitations`}>Limitations and scope</h3>
        {mock && (
          <p class="notice" role="note">
            Log evidence in this report comes from the MOCK log source: sample data, not your production logs.
          </p>
        )}
        <p>
          <strong>Scope:</strong>{' '}
          {mock ? withoutMockNote(report.limitations.scope) : report.limitations.scope}
        </p>
        {report.limitations.missing_info.length > 0 && (
          <>
            <p>
              <strong>Not known:</strong>
            </p>
            <ul>
              {report.limitations.missing_info.map((item, index) => (
                <li key={index}>{item}</li>
              ))}
            </ul>
          </>
        )}
      </section>

      <section class="report-section" aria-labelledby={`${anchorPrefix}-references`}>
        <h3 id={`${anchorPrefix}-references`}>References</h3>
        <ReferenceList references={report.references} anchorPrefix={anchorPrefix} trace={trace} />
      </section>
    </article>
  );
}
