import type {
  ChatContent,
  ChatEvent,
  ContentPayloads,
  ContentType,
  DoneOutcome,
  FailureCode,
  StatusCode,
} from '@app/contracts';

export type { ChatEvent };

/** What a run reports while it works; the chat stream turns it into `status` events. */
export interface RunObserver {
  status(code: StatusCode, message: string): void;
}

/**
 * Enforces the stream contract in one place: queued* while the request waits for a slot, metadata once
 * and first of the run, then status*, then at most one
 * content xor failure, then done exactly once; nothing after done, and nothing at all once the client
 * has gone (then the run is cancelled and no terminal event is sent).
 */
export class ChatEventStream implements RunObserver {
  private phase: 'NEW' | 'OPEN' | 'ANSWERED' | 'DONE' = 'NEW';
  private closed = false;

  constructor(private readonly write: (event: ChatEvent) => void) {}

  /** The client went away: every later event is dropped. */
  close(): void {
    this.closed = true;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** The request waits for a slot; only before metadata. */
  queued(ahead: number): void {
    this.expect('NEW', 'queued');
    this.emit({ event: 'queued', data: { ahead } });
  }

  metadata(sessionId: string, runId: string): void {
    this.expect('NEW', 'metadata');
    this.phase = 'OPEN';
    this.emit({ event: 'metadata', data: { session_id: sessionId, run_id: runId } });
  }

  status(code: StatusCode, message: string): void {
    if (this.phase !== 'OPEN') return;
    this.emit({ event: 'status', data: { code, message } });
  }

  content<Type extends ContentType>(
    contentType: Type,
    payload: ContentPayloads[Type],
    outcome: Exclude<DoneOutcome, 'FAILED'>,
  ): void {
    this.expect('OPEN', 'content');
    this.phase = 'ANSWERED';
    this.emit({ event: 'content', data: { content_type: contentType, payload } as ChatContent });
    this.done(outcome);
  }

  failure(code: FailureCode, message: string): void {
    if (this.phase === 'DONE' || this.phase === 'ANSWERED') return;
    if (this.phase === 'NEW') throw new Error('failure before metadata');
    this.phase = 'ANSWERED';
    this.emit({ event: 'failure', data: { code, message } });
    this.done('FAILED');
  }

  private done(outcome: DoneOutcome): void {
    this.phase = 'DONE';
    this.emit({ event: 'done', data: { outcome } });
  }

  private expect(phase: typeof this.phase, what: string): void {
    if (this.phase !== phase) throw new Error(`chat stream: ${what} is not allowed after ${this.phase}`);
  }

  private emit(event: ChatEvent): void {
    if (!this.closed) this.write(event);
  }
}
