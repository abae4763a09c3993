import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { apiRequest } from '../api/api-client';
import type { RunReasoning, RunTrace } from '@app/contracts';
import { paths } from '../api/paths';
import { useResource } from '../api/use-resource';
import { formatBytes, formatDuration, formatTime, prettyJson } from '../format';
import { hrefOf } from '../router';
import { ResourceView, TableScroll } from '../ui/feedback';
import { Tabs } from '../ui/tabs';
import { AlertBadge, AlertLabelList } from './alert-view';
import { citedReferences } from './cited-references';
import { offsetMs, shownDurationMs } from './run-timing';

const REFRESH_MS = 2000;

/** Bounded timeline details as "key: value" text; nested values stay compact. */
function Details({ details }: { details: Record<string, unknown> | null }) {
  const entries = Object.entries(details ?? {});
  if (entries.length === 0) return null;
  return (
    <span class="details">
      {entries.map(([key, value]) => (
        <span key={key} class="detail">
          {key}: {typeof value === 'string' ? value : JSON.stringify(value)}
        </span>
      ))}
    </span>
  );
}

function Summary({ trace }: { trace: RunTrace }) {
  const run = trace.run;
  const budget = run.budget;
  return (
    <div class="run-summary">
      <p class="run-query">{run.query}</p>
      <dl class="facts">
        <Fact label="Status" field="status">
          <span class={`badge status-${run.status.toLowerCase()}`}>{run.status}</span>
        </Fact>
        <Fact label="Intent">{run.intent ?? '—'}</Fact>
        <Fact label="Released">{run.release_outcome ?? '—'}</Fact>
        {run.fallback_reason && <Fact label="Fallback">{run.fallback_reason}</Fact>}
        {run.error_code && <Fact label="Error">{run.error_code}</Fact>}
        <Fact label="Started">
          <time dateTime={run.created_at}>{formatTime(run.created_at)}</time>
        </Fact>
        <Fact label="Duration" field="duration">
          {formatDuration(shownDurationMs(trace))}
        </Fact>
      </dl>
      <h3>Budget used</h3>
      <dl class="facts budget" aria-label="Budget totals">
        <Fact label="Model calls" field="model_calls">
          {budget.model_calls}
        </Fact>
        <Fact label="Tool calls" field="tool_calls">
          {budget.tool_calls}
        </Fact>
        <Fact label="Input tokens">{budget.input_tokens}</Fact>
        <Fact label="Output tokens">{budget.output_tokens}</Fact>
        <Fact label="Total tokens">{budget.total_tokens}</Fact>
        {budget.exhausted && <Fact label="Exhausted">{budget.exhausted}</Fact>}
      </dl>
    </div>
  );
}

/** One term of a facts list; `field` names it for tests and scripts. */
function Fact({ label, field, children }: { label: string; field?: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd data-field={field}>{children}</dd>
    </div>
  );
}

function Timeline({ trace }: { trace: RunTrace }) {
  if (trace.timeline.length === 0) return <p class="hint">No timeline events.</p>;
  return (
    <ol class="timeline" aria-label="Timeline">
      {trace.timeline.map((event, index) => (
        <li key={index}>
          <time dateTime={event.at} class="step-time">
            +{formatDuration(offsetMs(trace, event.at))}
          </time>
          <span class="badge muted">{event.phase}</span> <span class="event-type">{event.event_type}</span>{' '}
          <Details details={event.details} />
        </li>
      ))}
    </ol>
  );
}

function ToolCalls({ trace, reference }: { trace: RunTrace; reference?: number }) {
  const cited = citedReferences(trace.timeline);
  const marked = reference ? [...cited].find(([, n]) => n === reference)?.[0] : undefined;
  useEffect(() => {
    if (!marked) return;
    const row = document.querySelector<HTMLElement>(`tr[data-tool-call-id="${CSS.escape(marked)}"]`);
    row?.scrollIntoView({ block: 'center' });
    row?.focus({ preventScroll: true });
  }, [marked]);
  if (trace.tool_invocations.length === 0) return <p class="hint">This run called no tools.</p>;
  return (
    <TableScroll label="Tool calls">
      <table class="tool-calls">
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col">Call id</th>
            <th scope="col">Status</th>
            <th scope="col">Evidence</th>
            <th scope="col">Arguments</th>
            <th scope="col">Request</th>
            <th scope="col">Raw</th>
            <th scope="col">To agent</th>
            <th scope="col">Duration</th>
          </tr>
        </thead>
        <tbody>
          {trace.tool_invocations.map((call, index) => (
            <tr
              key={index}
              data-tool-call-id={call.tool_call_id ?? ''}
              class={call.tool_call_id && call.tool_call_id === marked ? 'marked' : undefined}
              tabIndex={call.tool_call_id && call.tool_call_id === marked ? -1 : undefined}
            >
              <td>
                {call.tool_name}
                {call.tool_call_id && cited.has(call.tool_call_id) && (
                  <a
                    class="cited-as"
                    href={hrefOf({
                      page: 'chat',
                      runId: trace.run.run_id,
                      reference: cited.get(call.tool_call_id),
                    })}
                  >
                    cited as [{cited.get(call.tool_call_id)}]
                  </a>
                )}
              </td>
              <td>
                <code>{call.tool_call_id ?? '—'}</code>
              </td>
              <td>
                {call.status}
                {call.error_code && <span class="badge warning">{call.error_code}</span>}
              </td>
              <td>{call.evidence_status ?? '—'}</td>
              <td>
                <Details details={call.arg_summary} />
              </td>
              <td>{formatBytes(call.request_bytes)}</td>
              <td>{formatBytes(call.raw_bytes)}</td>
              <td>
                {formatBytes(call.agent_result_bytes)}
                {call.truncated && <span class="badge muted">truncated</span>}
              </td>
              <td>{formatDuration(call.duration_ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

function ModelSteps({ trace }: { trace: RunTrace }) {
  if (trace.steps.length === 0) return <p class="hint">No model steps.</p>;
  return (
    <TableScroll label="Model steps">
      <table>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Role</th>
            <th scope="col">Attempt</th>
            <th scope="col">Status</th>
            <th scope="col">Finish</th>
            <th scope="col">Tool calls</th>
            <th scope="col">Tokens in / out</th>
            <th scope="col">Duration</th>
          </tr>
        </thead>
        <tbody>
          {trace.steps.map((step) => (
            <tr key={step.step_index}>
              <td>{step.step_index}</td>
              <td>{step.role}</td>
              <td>{step.attempt}</td>
              <td>
                {step.status}
                {step.error_code && <span class="badge warning">{step.error_code}</span>}
              </td>
              <td>{step.finish_reason ?? '—'}</td>
              <td>{step.tool_call_count}</td>
              <td>
                {step.input_tokens ?? '—'} / {step.output_tokens ?? '—'}
              </td>
              <td>{formatDuration(step.duration_ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

/** The restricted reasoning audit, fetched only with the auditor key and only when its tab is opened. */
function Reasoning({
  sessionId,
  runId,
  auditorKey,
}: {
  sessionId: string;
  runId: string;
  auditorKey: string;
}) {
  const [reasoning] = useResource<RunReasoning>(
    (signal) => apiRequest(paths.reasoning(sessionId, runId), { apiKey: auditorKey, signal }),
    [sessionId, runId, auditorKey],
  );
  return (
    <ResourceView resource={reasoning} what="the reasoning audit">
      {(data) => (
        <>
          <p class="notice" role="note">
            Restricted audit data: the model’s own reasoning and text per step, exactly as the provider sent
            it.
          </p>
          <ol class="reasoning">
            {data.steps.map((step) => (
              <li key={step.step_index}>
                <p>
                  <strong>Step {step.step_index}</strong> · {step.role} ·{' '}
                  <span class="badge muted">{step.content_source}</span>
                </p>
                {step.reasoning_content && (
                  <>
                    <h4>Reasoning</h4>
                    <pre>{prettyJson(step.reasoning_content)}</pre>
                  </>
                )}
                {step.assistant_text && (
                  <>
                    <h4>Assistant text</h4>
                    <pre>{prettyJson(step.assistant_text)}</pre>
                  </>
                )}
              </li>
            ))}
          </ol>
        </>
      )}
    </ResourceView>
  );
}

interface RunTraceViewProps {
  sessionId: string;
  runId: string;
  /** A report reference to mark: its tool call is shown and focused in the tool-call tab. */
  reference?: number;
  apiKey: string;
  auditorKey: string;
}

/** Where the run's outcome was sent (targets from NOTIFY_TARGETS_FILE): delivered, failed and why, or still sending. */
function Notifications({ trace }: { trace: RunTrace }) {
  return (
    <TableScroll label="Notifications">
      <table class="notifications">
        <thead>
          <tr>
            <th scope="col">Target</th>
            <th scope="col">Kind</th>
            <th scope="col">Trigger</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last HTTP status</th>
            <th scope="col">Vendor code</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {trace.notifications.map((delivery) => (
            <tr key={delivery.target}>
              <td>{delivery.target}</td>
              <td>{delivery.kind}</td>
              <td>{delivery.trigger}</td>
              <td>
                {delivery.status}
                {delivery.failure && <span class="badge warning">{delivery.failure}</span>}
              </td>
              <td>{delivery.attempts}</td>
              <td>{delivery.last_http_status ?? '—'}</td>
              <td>{delivery.vendor_code ?? '—'}</td>
              <td>{formatTime(delivery.updated_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

/** One run: summary and budget, then tabs for the timeline, tool calls, model steps and (auditors) reasoning. */
export function RunTraceView({ sessionId, runId, reference, apiKey, auditorKey }: RunTraceViewProps) {
  const [trace, reload] = useResource<RunTrace>(
    (signal) => apiRequest(paths.trace(sessionId, runId), { apiKey, signal }),
    [sessionId, runId, apiKey],
  );
  // A run still in progress is followed until it ends, and its notifications until none is sending.
  const running = trace.state === 'ready' && trace.data.run.status === 'RUNNING';
  const sending =
    trace.state === 'ready' && trace.data.notifications.some((delivery) => delivery.status === 'SENDING');
  useEffect(() => {
    if (!running && !sending) return;
    const timer = setTimeout(reload, REFRESH_MS);
    return () => clearTimeout(timer);
  }, [running, sending, trace, reload]);
  return (
    <section aria-labelledby="run-title">
      <div class="page-head">
        <h2 id="run-title" tabIndex={-1}>
          Run <code>{runId}</code>
        </h2>
        <p>
          <a href={hrefOf({ page: 'runs', sessionId, runId: null })}>All runs of this session</a>{' '}
          <button type="button" class="secondary" onClick={reload}>
            Refresh
          </button>
        </p>
      </div>
      <ResourceView resource={trace} what="the trace">
        {(data) => (
          <>
            {running && (
              <p class="hint" role="status">
                The run is still going; this page refreshes every {REFRESH_MS / 1000} s until it ends.
              </p>
            )}
            {data.session.alert && (
              <div class="alert-panel">
                <p>
                  <AlertBadge /> Started by an alert group:
                </p>
                <AlertLabelList labels={data.session.alert.labels} />
              </div>
            )}
            <Summary trace={data} />
            <Tabs
              label="Run details"
              initial={reference ? 'tools' : undefined}
              tabs={[
                { id: 'timeline', label: 'Timeline', render: () => <Timeline trace={data} /> },
                {
                  id: 'tools',
                  label: `Tool calls (${data.tool_invocations.length})`,
                  render: () => <ToolCalls trace={data} reference={reference} />,
                },
                {
                  id: 'steps',
                  label: `Model steps (${data.steps.length})`,
                  render: () => <ModelSteps trace={data} />,
                },
                // Only for a run that was sent somewhere: most runs ask for no notification.
                ...(data.notifications.length > 0
                  ? [
                      {
                        id: 'notifications',
                        label: `Notifications (${data.notifications.length})`,
                        render: () => <Notifications trace={data} />,
                      },
                    ]
                  : []),
                ...(auditorKey
                  ? [
                      {
                        id: 'reasoning',
                        label: 'Reasoning (audit)',
                        render: () => (
                          <Reasoning sessionId={sessionId} runId={runId} auditorKey={auditorKey} />
                        ),
                      },
                    ]
                  : []),
              ]}
            />
          </>
        )}
      </ResourceView>
    </section>
  );
}
