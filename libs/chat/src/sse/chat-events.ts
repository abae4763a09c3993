/** The fixed, documented status codes of the chat stream (docs/architecture.md "SSE"). */
export const STATUS_CODES = [
  'ROUTING',
  'ANSWERING',
  'KNOWLEDGE_SEARCHING',
  'PLANNING',
  'DIAGNOSIS_PLAN',
  'TOOL_RUNNING',
  'TOOL_DONE',
  'EVIDENCE_VALIDATING',
  'EVIDENCE_REPAIRING',
  'SEMANTIC_VALIDATING',
  'RELEASING',
] as const;
export type StatusCode = (typeof STATUS_CODES)[number];

export const CONTENT_TYPES = ['SYSTEM_ANSWER', 'KNOWLEDGE_ANSWER', 'DIAGNOSIS_REPORT', 'FALLBACK'] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

export const FAILURE_CODES = [
  'ROUTING_UNAVAILABLE',
  'MODEL_UNAVAILABLE',
  'BUDGET_EXHAUSTED',
  'RUN_TIMEOUT',
  'KNOWLEDGE_UNAVAILABLE',
  'INTERNAL_ERROR',
] as const;
export type FailureCode = (typeof FAILURE_CODES)[number];

export type DoneOutcome = 'SUCCESS' | 'FALLBACK' | 'FAILED';

export type ChatEvent =
  | { event: 'metadata'; data: { session_id: string; run_id: string } }
  | { event: 'status'; data: { code: StatusCode; message: string } }
  | { event: 'content'; data: { content_type: ContentType; payload: unknown } }
  | { event: 'failure'; data: { code: FailureCode; message: string } }
  | { event: 'done'; data: { outcome: DoneOutcome } };

/** What a run reports while it works; the chat stream turns it into `status` events. */
export interface RunObserver {
  status(code: StatusCode, message: string): void;
}

/**
 * Enforces the stream contract in one place: metadata once and first, then status*, then at most one
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

  metadata(sessionId: string, runId: string): void {
    this.expect('NEW', 'metadata');
    this.phase = 'OPEN';
    this.emit({ event: 'metadata', data: { session_id: sessionId, run_id: runId } });
  }

  status(code: StatusCode, message: string): void {
    if (this.phase !== 'OPEN') return;
    this.emit({ event: 'status', data: { code, message } });
  }

  content(contentType: ContentType, payload: unknown, outcome: Exclude<DoneOutcome, 'FAILED'>): void {
    this.expect('OPEN', 'content');
    this.phase = 'ANSWERED';
    this.emit({ event: 'content', data: { content_type: contentType, payload } });
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
