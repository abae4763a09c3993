import type { DiagnosisRun } from '@app/trace';
import { FIXED_TEXTS, FinishedRunSummary, notificationMessageOf, runUrlOf } from './notification-message';

const SUMMARY: FinishedRunSummary = {
  runId: 'run-1',
  sessionId: 'session-1',
  trigger: 'chat',
  targets: null,
  alertLabels: null,
};

function run(fields: Partial<DiagnosisRun>): DiagnosisRun {
  return {
    runId: 'run-1',
    sessionId: 'session-1',
    status: 'SUCCESS',
    conclusion: null,
    fallbackReason: null,
    errorCode: null,
    ...fields,
  } as DiagnosisRun;
}

describe('notificationMessageOf: only a released conclusion or a fixed text', () => {
  it.each([
    [
      'a released diagnosis sends its conclusion',
      { status: 'SUCCESS', conclusion: 'pool exhausted' },
      'pool exhausted',
      true,
    ],
    [
      'a run released without a conclusion sends the fixed text',
      { status: 'SUCCESS' },
      FIXED_TEXTS.ANSWERED,
      false,
    ],
    [
      'a fallback sends the fixed text whatever the row holds',
      { status: 'FALLBACK', conclusion: 'DRAFT text', fallbackReason: 'SEMANTIC_UNSUPPORTED' },
      FIXED_TEXTS.FALLBACK,
      false,
    ],
    ['a failed run', { status: 'FAILED', errorCode: 'MODEL_UNAVAILABLE' }, FIXED_TEXTS.FAILED, false],
    [
      'a cancelled run',
      { status: 'CANCELLED', errorCode: 'CLIENT_DISCONNECTED' },
      FIXED_TEXTS.CANCELLED,
      false,
    ],
  ] as const)('%s', (_name, fields, text, released) => {
    const message = notificationMessageOf(run(fields), SUMMARY, 'https://ui.example.com/');
    expect(message).toMatchObject({ text, released, outcome: fields.status });
    expect(message?.runUrl).toBe('https://ui.example.com/#/runs/session-1/run-1');
  });

  it('names the fallback reason as a code', () => {
    const message = notificationMessageOf(
      run({ status: 'FALLBACK', fallbackReason: 'SEMANTIC_UNSUPPORTED' }),
      SUMMARY,
      'https://ui.example.com',
    );
    expect(message?.reason).toBe('SEMANTIC_UNSUPPORTED');
  });

  it('sends nothing for a run still RUNNING', () => {
    expect(notificationMessageOf(run({ status: 'RUNNING' }), SUMMARY, 'https://ui.example.com')).toBeNull();
  });

  it('builds the UI link with encoded ids', () => {
    expect(runUrlOf('https://ui.example.com/agent/', 's 1', 'r/1')).toBe(
      'https://ui.example.com/agent/#/runs/s%201/r%2F1',
    );
  });
});
