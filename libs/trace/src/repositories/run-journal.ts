import type { ContentSource } from '../entities/agent-reasoning-audit.entity';
import type { Intent } from '@app/contracts';
import type { RunMetrics, RunPhase } from '@app/metrics';
import type { TraceDetails } from '../entities/diagnosis-trace-event.entity';
import type { ToolInvocationEntity } from '../entities/tool-invocation.entity';
import { boundDetails } from './bounded-details';
import type { FinishRun } from './run.repository';

export const TIMELINE_PHASES = [
  'RUN',
  'ROUTING',
  'AGENT',
  'TOOL',
  'EVIDENCE',
  'SEMANTIC',
  'RELEASE',
  'BUDGET',
] as const;
export type TimelinePhase = (typeof TIMELINE_PHASES)[number];

/** The closed set of timeline events, per phase; the trace API and the web UI show these names. */
export const TIMELINE_EVENTS = {
  RUN: ['RUN_STARTED', 'RUN_FINISHED'],
  ROUTING: ['ROUTED', 'MODEL_STEP', 'ATTEMPT'],
  AGENT: ['AGENT_STARTED', 'AGENT_FINISHED', 'MODEL_STEP', 'ATTEMPT'],
  TOOL: [
    'TOOL_STARTED',
    'TOOL_FINISHED',
    'TOOL_CALL_ID_REWRITTEN',
    'TOOL_CALL_NORMALISED',
    'TOOL_CALL_REPEATED',
    'ATTEMPT',
  ],
  EVIDENCE: ['EVIDENCE_CHECKED', 'MODEL_STEP', 'ATTEMPT'],
  SEMANTIC: [
    'SEMANTIC_SKIPPED',
    'SEMANTIC_VERDICT',
    'KNOWLEDGE_REVIEW_SKIPPED',
    'KNOWLEDGE_VERDICT',
    'MODEL_STEP',
    'ATTEMPT',
  ],
  RELEASE: [
    'RELEASED',
    'FALLBACK',
    'RELEASE_CHECK_FAILED',
    'GROUNDING_CHECK_FAILED',
    'KNOWLEDGE_ANSWERED',
    'KNOWLEDGE_UNAVAILABLE',
  ],
  BUDGET: ['BUDGET_EXHAUSTED'],
} as const satisfies Record<TimelinePhase, readonly string[]>;
export type TimelineEvent<P extends TimelinePhase = TimelinePhase> = (typeof TIMELINE_EVENTS)[P][number];

/** The phase each timeline phase's time counts to in the metrics; null for the instants. */
const METRIC_PHASES: Record<TimelinePhase, RunPhase | null> = {
  RUN: null,
  ROUTING: 'ROUTING',
  AGENT: 'AGENT',
  TOOL: 'TOOL',
  EVIDENCE: 'EVIDENCE',
  SEMANTIC: 'SEMANTIC',
  RELEASE: null,
  BUDGET: null,
};

/** Bounded metadata of one model call (agent_step); the run is the journal's. */
export interface ModelStepRecord {
  stepIndex: number;
  role: string;
  attempt: number;
  status: 'OK' | 'ERROR';
  errorCode: string | null;
  finishReason: string | null;
  toolCallCount: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  startedAt: Date;
  durationMs: number;
}

/** The restricted text of one model step (agent_reasoning_audit), sealed when it is written. */
export interface ReasoningAuditRecord {
  contentSource: ContentSource;
  reasoningContent: string | null;
  assistantText: string | null;
}

/** The durable, bounded audit of one tool call (tool_invocation); the run is the journal's. */
export type ToolInvocationRecord = Omit<ToolInvocationEntity, 'id' | 'runId'>;

/** One timeline event as recorded: its event name is one of its phase's. */
export type JournalEvent = {
  [P in TimelinePhase]: {
    phase: P;
    eventType: TimelineEvent<P>;
    details: TraceDetails | null;
    /** performance.now() when it happened: the row's created_at is the database clock minus its age. */
    at: number;
  };
}[TimelinePhase];

/** Everything recorded since the last write, in the order it happened. */
export interface JournalBatch {
  events: JournalEvent[];
  steps: { step: ModelStepRecord; audit: ReasoningAuditRecord }[];
  invocations: ToolInvocationRecord[];
  /** The routed intent, once routing has decided it. */
  intent: Intent | null;
  /** The first budget limit the run hit (later ones are its consequences). */
  budgetExhausted: string | null;
}

/** Where a journal's batches go: one transaction per write (RunJournalRepository). */
export interface JournalStore {
  /** `deadlineAt` (epoch ms, null for none) bounds how long the write may take, with the store's grace. */
  write(runId: string, batch: JournalBatch, deadlineAt: number | null): Promise<void>;
  /** The batch and the run's terminal state in one transaction; false when the run had already left RUNNING. */
  finish(runId: string, batch: JournalBatch, finish: FinishRun, deadlineAt: number | null): Promise<boolean>;
  /** A write of rows recorded after the terminal one failed; nobody is waiting for it any more. */
  lateWriteFailed(runId: string, error: unknown): void;
  /**
   * A live-progress write failed (it ends nothing): logs it, and answers whether its rows are known not
   * to be stored (the journal then keeps them for its next write) rather than perhaps stored.
   */
  progressWriteFailed(runId: string, error: unknown): boolean;
}

/**
 * The trace rows of one run that are not written yet: timeline events, model steps with their audit
 * text, tool invocations and the run row's intent and first budget limit. Recording only appends in
 * memory; `flush()` writes everything pending in one transaction (one multi-row INSERT per table) at the
 * run's phase boundaries, and `finish()` writes the rest together with the terminal state, so "persist,
 * then announce" covers every row. Writes of one run are serialised, so timeline ids keep the order
 * events happened in. A batch whose write fails is dropped and the error goes to the caller (it ends
 * the run): it never stands between the run and its terminal state. A live-progress write
 * (`flushOlderThan`) is the exception: it only lets a trace reader follow a long loop, so its failure
 * ends nothing; its rows stay pending for the next write when the store knows they were not written. Rows recorded after `finish()` —
 * the last step of a model or tool call that a cancellation interrupted, which ends after the run did —
 * are written on their own at once, as each row was before journals. Owned by the run's RunContext;
 * never shared between runs. What it records also goes to the run's metrics (when it has them), so the
 * service's metrics count exactly what the trace holds.
 */
export class RunJournal {
  private batch = emptyBatch();
  private writing: Promise<unknown> = Promise.resolve();
  private finished = false;
  private lateWriteScheduled = false;
  /** performance.now() of the oldest row not yet taken for a write. */
  private oldestPending: number | null = null;
  private routedIntent: Intent | null = null;

  constructor(
    readonly runId: string,
    private readonly store: JournalStore,
    /** The run's deadline (epoch ms): its writes end near it, whatever the database does. */
    private readonly deadlineAt: number | null = null,
    private readonly metrics: RunMetrics | null = null,
  ) {}

  /** The intent routing decided, once it has. */
  get intent(): Intent | null {
    return this.routedIntent;
  }

  event<P extends TimelinePhase>(phase: P, eventType: TimelineEvent<P>, details?: TraceDetails): void {
    const at = performance.now();
    this.batch.events.push({ phase, eventType, details: boundDetails(details), at } as JournalEvent);
    const metricPhase = METRIC_PHASES[phase];
    if (metricPhase && this.metrics) {
      const duration = details?.duration_ms;
      this.metrics.event(metricPhase, at, typeof duration === 'number' ? duration : undefined);
    }
    this.afterRecord();
  }

  modelStep(step: ModelStepRecord, audit: ReasoningAuditRecord): void {
    this.batch.steps.push({ step, audit });
    this.metrics?.modelCall(
      step.role,
      // An ERROR without a code is counted as OTHER, and logged, by the metrics.
      step.status === 'OK' ? null : (step.errorCode ?? ''),
      step,
      step.durationMs,
    );
    this.afterRecord();
  }

  toolInvocation(invocation: ToolInvocationRecord): void {
    this.batch.invocations.push(invocation);
    this.metrics?.toolCall(
      invocation.toolName,
      invocation.status === 'READY' ? invocation.evidenceStatus : (invocation.errorCode ?? ''),
      invocation.durationMs,
    );
    this.afterRecord();
  }

  setIntent(intent: Intent): void {
    this.batch.intent = intent;
    this.routedIntent = intent;
    this.afterRecord();
  }

  budgetExhausted(limit: string): void {
    this.batch.budgetExhausted ??= limit;
    this.afterRecord();
  }

  /** Writes what is pending (no round trip when nothing is); resolves once it is committed. */
  flush(): Promise<void> {
    return this.serialise(async () => {
      const batch = this.take();
      if (!isEmpty(batch)) await this.store.write(this.runId, batch, this.deadlineAt);
    });
  }

  /**
   * Live progress at a bounded cost: writes what is pending only when its oldest row is at least
   * `maxAgeMs` old. Never rejects: a failed write is the store's to log, and rows known not to be stored
   * go back in front of what is pending (the terminal write takes them at the latest).
   */
  flushOlderThan(maxAgeMs: number, now = performance.now()): Promise<void> {
    if (this.oldestPending === null || now - this.oldestPending < maxAgeMs) return Promise.resolve();
    return this.serialise(async () => {
      const oldest = this.oldestPending;
      const batch = this.take();
      if (isEmpty(batch)) return;
      try {
        await this.store.write(this.runId, batch, this.deadlineAt);
      } catch (error) {
        if (this.store.progressWriteFailed(this.runId, error)) this.putBack(batch, oldest);
      }
    });
  }

  /** Writes what is pending with the run's terminal state; false when the run had already left RUNNING. */
  finish(finish: FinishRun): Promise<boolean> {
    if (this.finished) return Promise.reject(new Error('the run journal is already finished'));
    this.finished = true;
    this.metrics?.finish();
    return this.serialise(() => this.store.finish(this.runId, this.take(), finish, this.deadlineAt));
  }

  /** After the terminal write, what a call records together (a step and its event) goes out in one write. */
  private afterRecord(): void {
    this.oldestPending ??= performance.now();
    if (!this.finished || this.lateWriteScheduled) return;
    this.lateWriteScheduled = true;
    queueMicrotask(() => {
      this.lateWriteScheduled = false;
      this.flush().catch((error: unknown) => this.store.lateWriteFailed(this.runId, error));
    });
  }

  private serialise<T>(write: () => Promise<T>): Promise<T> {
    const next = this.writing.then(write);
    this.writing = next.catch(() => undefined);
    return next;
  }

  /** A batch whose write failed, back before what was recorded since (timeline order kept). */
  private putBack(batch: JournalBatch, oldest: number | null): void {
    const since = this.batch;
    this.batch = {
      events: [...batch.events, ...since.events],
      steps: [...batch.steps, ...since.steps],
      invocations: [...batch.invocations, ...since.invocations],
      intent: since.intent ?? batch.intent,
      budgetExhausted: batch.budgetExhausted ?? since.budgetExhausted,
    };
    this.oldestPending = oldest ?? this.oldestPending;
  }

  private take(): JournalBatch {
    const batch = this.batch;
    this.batch = emptyBatch();
    this.oldestPending = null;
    return batch;
  }
}

function emptyBatch(): JournalBatch {
  return { events: [], steps: [], invocations: [], intent: null, budgetExhausted: null };
}

function isEmpty(batch: JournalBatch): boolean {
  return (
    batch.events.length === 0 &&
    batch.steps.length === 0 &&
    batch.invocations.length === 0 &&
    batch.intent === null &&
    batch.budgetExhausted === null
  );
}
