import {
  CanonicalInvocation,
  EvidenceStoreUnavailable,
  HarnessConfig,
  HarnessRetryPolicies,
  InvocationStore,
  loadHarnessConfig,
  loadLlmConfig,
  ModelGateway,
  RunContext,
} from '@app/harness';
import { FinishRun, RunJournal, ToolInvocationRepository } from '@app/trace';
import type { JournalBatch, JournalEvent, JournalStore } from '../../libs/trace/src/repositories/run-journal';
import { BudgetAudit } from '../../libs/harness/src/run/budget-audit';
import { FakeChatModel } from './fake-chat-model';
import { TEST_RUN_LIMITS } from './run-limits';

/**
 * In-process stand-ins for the Harness ports, for unit specs of the decision code: no MariaDB, Redis or
 * network. Each implements the same class or interface the service's own adapter does.
 */

/** The test default: the validated Harness config with these HARNESS_* values on top of the built-in defaults. */
export function unitHarnessConfig(env: Record<string, string> = {}): HarnessConfig {
  return loadHarnessConfig({ ...env });
}

export function unitLlmConfig(env: Record<string, string> = {}) {
  return loadLlmConfig({
    LLM_BASE_URL: 'http://127.0.0.1:9/v1',
    LLM_API_KEY: 'unit-key',
    LLM_MODEL: 'deepseek-chat',
    PROMPTS_DIR: 'prompts',
    ...env,
  });
}

/** The real ModelGateway over the fake chat model. */
export function unitGateway(
  model: FakeChatModel,
  config: HarnessConfig = unitHarnessConfig(),
  llmEnv: Record<string, string> = {},
): ModelGateway {
  return new ModelGateway(unitLlmConfig(llmEnv), config, new BudgetAudit(), model);
}

/** How the next store write answers: a StoreOutcome, or 'UNAVAILABLE' (Redis down). */
export type StoreAnswer = 'OK' | 'DUPLICATE' | 'MISSING' | 'RECORD_TOO_LARGE' | 'RUN_LIMIT' | 'UNAVAILABLE';

/**
 * The canonical invocation store in a Map, with the Redis script's rules (a create never overwrites, an
 * update of a missing record is MISSING); `answers` scripts the outcome of the next writes, in order.
 */
export class MemoryInvocationStore extends InvocationStore {
  readonly records = new Map<string, CanonicalInvocation>();
  readonly answers: StoreAnswer[] = [];
  /** Runs whose start marker is held (openRun), as the Redis marker key. */
  readonly openRuns = new Set<string>();
  readsFail = false;

  constructor(config: HarnessConfig = unitHarnessConfig()) {
    super(null as never, config);
  }

  override create(record: CanonicalInvocation) {
    return this.put(record, 'create');
  }

  override update(record: CanonicalInvocation) {
    return this.put(record, 'update');
  }

  override get(runId: string, toolCallId: string): Promise<CanonicalInvocation | null> {
    if (this.readsFail) return Promise.reject(new EvidenceStoreUnavailable());
    const record = this.records.get(this.key(runId, toolCallId));
    return Promise.resolve(record ? (structuredClone(record) as CanonicalInvocation) : null);
  }

  override openRun(runId: string): Promise<void> {
    if (this.readsFail) return Promise.reject(new EvidenceStoreUnavailable());
    this.openRuns.add(runId);
    return Promise.resolve();
  }

  override runIntact(runId: string): Promise<boolean> {
    if (this.readsFail) return Promise.reject(new EvidenceStoreUnavailable());
    return Promise.resolve(this.openRuns.has(runId));
  }

  /** What a Redis restart without persistence does to a run: its records and its marker are gone. */
  lose(runId: string): void {
    this.openRuns.delete(runId);
    for (const key of [...this.records.keys()]) if (key.includes(`{${runId}}`)) this.records.delete(key);
  }

  private put(record: CanonicalInvocation, mode: 'create' | 'update') {
    const key = this.key(record.run_id, record.tool_call_id);
    const scripted = this.answers.shift();
    if (scripted === 'UNAVAILABLE') return Promise.reject(new EvidenceStoreUnavailable());
    if (scripted !== undefined && scripted !== 'OK') return Promise.resolve(scripted);
    if (mode === 'create' && this.records.has(key)) return Promise.resolve('DUPLICATE' as const);
    if (mode === 'update' && !this.records.has(key)) return Promise.resolve('MISSING' as const);
    this.records.set(key, structuredClone(record) as CanonicalInvocation);
    return Promise.resolve('OK' as const);
  }
}

/** The journal's store in memory: every written batch, and the terminal state once finished. */
export class MemoryJournalStore implements JournalStore {
  readonly batches: JournalBatch[] = [];
  finished: FinishRun | null = null;
  /** Set to make the terminal write fail (throw) or report that the run had already left RUNNING. */
  finishAnswer: 'STORED' | 'NOT_RUNNING' | 'FAILS' = 'STORED';

  write(_runId: string, batch: JournalBatch): Promise<void> {
    this.batches.push(batch);
    return Promise.resolve();
  }

  finish(_runId: string, batch: JournalBatch, finish: FinishRun): Promise<boolean> {
    if (this.finishAnswer === 'FAILS') return Promise.reject(new Error('database down'));
    this.batches.push(batch);
    if (this.finishAnswer === 'NOT_RUNNING') return Promise.resolve(false);
    this.finished = finish;
    return Promise.resolve(true);
  }

  lateWriteFailed(): void {}

  progressWriteFailed(): boolean {
    return true;
  }

  /** Every timeline event written so far, in order. */
  get events(): JournalEvent[] {
    return this.batches.flatMap((batch) => batch.events);
  }

  get invocations() {
    return this.batches.flatMap((batch) => batch.invocations);
  }

  get steps() {
    return this.batches.flatMap((batch) => batch.steps.map(({ step }) => step));
  }
}

/** The run's tool_invocation rows as its journal has written them (what EvidenceGuard's repair reads back). */
export class MemoryToolInvocations extends ToolInvocationRepository {
  constructor(private readonly journal: MemoryJournalStore) {
    super(null as never);
  }

  override listForRun(runId: string) {
    return Promise.resolve(
      this.journal.invocations.map((row, index) => ({ ...row, id: String(index + 1), runId })),
    );
  }
}

export interface UnitRunOptions {
  runId?: string;
  timeoutMs?: number;
  limits?: Partial<Parameters<typeof RunContext.start>[0]['limits']>;
  parentSignal?: AbortSignal;
  journal?: MemoryJournalStore;
  pace?: () => Promise<void>;
}

/** A run's pace that holds every call until `open()`; `asked` counts the calls that waited for it. */
export function heldPace() {
  let open!: () => void;
  let asked = 0;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    pace: () => {
      asked += 1;
      return opened;
    },
    open: () => open(),
    get asked() {
      return asked;
    },
  };
}

/** A RunContext whose journal writes into memory; `store` holds what it wrote once it is flushed. */
export function startUnitRun(options: UnitRunOptions = {}): { ctx: RunContext; store: MemoryJournalStore } {
  const store = options.journal ?? new MemoryJournalStore();
  const runId = options.runId ?? 'run-unit-1';
  const ctx = RunContext.start({
    sessionId: 'session-unit-1',
    runId,
    journal: new RunJournal(runId, store),
    // The service's default HARNESS_RUN_TIMEOUT_MS: a phase under the default guard reserve (60 s) then
    // has time left, as in the service (the config refuses a reserve that is not shorter than the run).
    timeoutMs: options.timeoutMs ?? 180_000,
    retryPolicies: HarnessRetryPolicies.defaults(),
    parentSignal: options.parentSignal,
    pace: options.pace,
    limits: { ...TEST_RUN_LIMITS, ...options.limits },
  });
  return { ctx, store };
}
