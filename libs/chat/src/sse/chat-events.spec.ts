import { ChatEvent, ChatEventStream } from './chat-events';

function stream() {
  const events: ChatEvent[] = [];
  return { events, stream: new ChatEventStream((event) => events.push(event)) };
}

describe('ChatEventStream', () => {
  it('emits metadata, status*, content and done in order', () => {
    const { events, stream: s } = stream();
    s.metadata('s1', 'r1');
    s.status('ROUTING', 'routing');
    s.content('SYSTEM_ANSWER', { answer: 'hi' }, 'SUCCESS');
    s.status('RELEASING', 'late');
    expect(events.map((e) => e.event)).toEqual(['metadata', 'status', 'content', 'done']);
    expect(events.at(-1)).toEqual({ event: 'done', data: { outcome: 'SUCCESS' } });
  });

  it('sends at most one of content and failure, and done exactly once', () => {
    const { events, stream: s } = stream();
    s.metadata('s1', 'r1');
    s.failure('ROUTING_UNAVAILABLE', 'try later');
    s.failure('INTERNAL_ERROR', 'again');
    expect(() => s.content('SYSTEM_ANSWER', { answer: 'late' }, 'SUCCESS')).toThrow(
      'content is not allowed after DONE',
    );
    expect(events.map((e) => e.event)).toEqual(['metadata', 'failure', 'done']);
    expect(events.at(-1)).toEqual({ event: 'done', data: { outcome: 'FAILED' } });
  });

  it('refuses anything before metadata and a second metadata', () => {
    const { stream: s } = stream();
    expect(() => s.content('SYSTEM_ANSWER', { answer: 'early' }, 'SUCCESS')).toThrow(
      'content is not allowed after NEW',
    );
    s.metadata('s', 'r');
    expect(() => s.metadata('s', 'r')).toThrow('metadata is not allowed after OPEN');
  });

  it('sends queued only before metadata, as often as it is told', () => {
    const { events, stream: s } = stream();
    s.queued(3);
    s.queued(1);
    s.metadata('s', 'r');
    expect(() => s.queued(0)).toThrow('queued is not allowed after OPEN');
    expect(events).toEqual([
      { event: 'queued', data: { ahead: 3 } },
      { event: 'queued', data: { ahead: 1 } },
      { event: 'metadata', data: { session_id: 's', run_id: 'r' } },
    ]);
  });

  it('writes nothing once the client has gone', () => {
    const { events, stream: s } = stream();
    s.metadata('s1', 'r1');
    s.close();
    s.status('TOOL_RUNNING', 'x');
    s.failure('INTERNAL_ERROR', 'x');
    expect(events.map((e) => e.event)).toEqual(['metadata']);
  });
});
