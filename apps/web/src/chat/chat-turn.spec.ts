import type { ChatEvent } from '@app/contracts';
import { applyChatEvent, ChatTurn, endTurn, startTurn, STREAM_CUT_MESSAGE } from './chat-turn';

const REPORT = {
  conclusion: null,
  analysis: [],
  action_plan: [],
  recommendations: [],
  limitations: { scope: 's', missing_info: [] },
  references: [],
};

const fold = (events: ChatEvent[], turn: ChatTurn = startTurn('t1', 'why?', 1000)) =>
  events.reduce((current, event, index) => applyChatEvent(current, event, 1100 + index * 100), turn);

const metadata: ChatEvent = { event: 'metadata', data: { session_id: 's1', run_id: 'r1' } };
const routing: ChatEvent = { event: 'status', data: { code: 'ROUTING', message: 'routing' } };

describe('chat turn', () => {
  it('is QUEUED with its place while the service holds it, then streams from metadata', () => {
    const queued = fold([
      { event: 'queued', data: { ahead: 3 } },
      { event: 'queued', data: { ahead: 1 } },
    ]);
    expect(queued).toMatchObject({ phase: 'QUEUED', queuedAhead: 1, runId: null });
    const running = fold([metadata, routing], queued);
    expect(running).toMatchObject({ phase: 'STREAMING', queuedAhead: null, runId: 'r1' });
  });

  it('records ids, progress with elapsed time, content and outcome of a complete stream', () => {
    const turn = fold([
      metadata,
      routing,
      { event: 'status', data: { code: 'TOOL_RUNNING', message: 'querying: query_logs' } },
      { event: 'content', data: { content_type: 'DIAGNOSIS_REPORT', payload: REPORT } },
      { event: 'done', data: { outcome: 'SUCCESS' } },
    ]);
    expect(turn).toMatchObject({
      phase: 'COMPLETE',
      sessionId: 's1',
      runId: 'r1',
      outcome: 'SUCCESS',
      content: { content_type: 'DIAGNOSIS_REPORT' },
      failure: null,
      problem: null,
    });
    expect(turn.progress).toEqual([
      { code: 'ROUTING', message: 'routing', elapsedMs: 200 },
      { code: 'TOOL_RUNNING', message: 'querying: query_logs', elapsedMs: 300 },
    ]);
  });

  it('keeps a failure event and completes with FAILED', () => {
    const turn = fold([
      metadata,
      { event: 'failure', data: { code: 'RUN_TIMEOUT', message: 'timed out' } },
      { event: 'done', data: { outcome: 'FAILED' } },
    ]);
    expect(turn).toMatchObject({ phase: 'COMPLETE', outcome: 'FAILED', failure: { code: 'RUN_TIMEOUT' } });
  });

  it('is STREAMING from the first event until done', () => {
    expect(fold([]).phase).toBe('SENDING');
    expect(fold([metadata]).phase).toBe('STREAMING');
    expect(fold([metadata, routing]).phase).toBe('STREAMING');
  });

  it.each([
    ['a stream that closes without done', { kind: 'closed' } as const, 'ERROR', STREAM_CUT_MESSAGE],
    ['a stop by the user', { kind: 'stopped' } as const, 'STOPPED', null],
    ['a refused request', { kind: 'error', message: 'HTTP 503' } as const, 'ERROR', 'HTTP 503'],
  ])('ends %s as %s', (_name, ending, phase, problem) => {
    expect(endTurn(fold([metadata, routing]), ending)).toMatchObject({ phase, problem });
  });

  it('ignores events and endings once the turn has ended', () => {
    const done = fold([metadata, { event: 'done', data: { outcome: 'SUCCESS' } }]);
    expect(endTurn(done, { kind: 'closed' })).toBe(done);
    expect(endTurn(done, { kind: 'stopped' })).toBe(done);
    expect(applyChatEvent(done, routing, 9999)).toBe(done);
    const stopped = endTurn(fold([metadata]), { kind: 'stopped' });
    expect(applyChatEvent(stopped, { event: 'done', data: { outcome: 'SUCCESS' } }, 9999)).toBe(stopped);
  });
  it('shows hidden characters of released content as visible marks', () => {
    const turn = fold([
      metadata,
      {
        event: 'content',
        data: { content_type: 'SYSTEM_ANSWER', payload: { answer: 'evil\u202e.com a\u200bb' } },
      },
    ]);
    expect(turn.content).toEqual({
      content_type: 'SYSTEM_ANSWER',
      payload: { answer: 'evil⟦U+202E⟧.com a⟦U+200B⟧b' },
    });
  });
});
