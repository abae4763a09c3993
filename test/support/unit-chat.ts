import {
  AnyHarnessTool,
  HarnessConfig,
  HarnessRetryExecutor,
  RunContextFactory,
  ToolFailure,
} from '@app/harness';
import { EMPTY_RELEASE_ALLOWLIST } from '@app/guards';
import { ServiceMetrics } from '@app/metrics';
import { EvidenceTools } from '@app/tools';
import type { FinishedRunSummary, RunNotifier } from '@app/notify';
import { DiagnosisRun, RunJournal, RunJournalRepository, RunRepository } from '@app/trace';
import { z } from 'zod';
import { ChatApplicationUseCase } from '../../libs/chat/src/chat-application.use-case';
import { IngressBurst } from '../../libs/chat/src/ingress-burst';
import { IntentRouter } from '../../libs/chat/src/routing/intent-router';
import { RunCompletions } from '../../libs/chat/src/run-completions';
import type { ChatEvent } from '../../libs/chat/src/sse/chat-events';
import { ChatEventStream } from '../../libs/chat/src/sse/chat-events';
import type { StubReply } from './stub-llm/stub-script';
import { diagnosisKit, DiagnosisKit } from './unit-diagnosis';
import { MemoryJournalStore } from './unit-harness';

/** The chat_session / diagnosis_run rows in memory, as far as the use case reads them. */
export class MemoryRunRepository extends RunRepository {
  readonly started: { sessionId: string; runId: string; query: string; ownerKeyDigest: string }[] = [];
  readonly released: string[] = [];
  readonly owners = new Map<string, string>();
  previousRuns: DiagnosisRun[] = [];
  /** Makes every read fail, as a MySQL outage would. */
  readsFail = false;
  startFails = false;

  constructor() {
    super(null as never, null as never, null as never, null as never, null as never, null as never);
  }

  /** Endings announced whose terminal write failed, as RunOwner would keep them for the heartbeat. */
  readonly endingsNotStored = new Map<string, { status: string; errorCode: string }>();

  override endingNotStored(runId: string, ending: { status: 'FAILED' | 'CANCELLED'; errorCode: string }) {
    this.endingsNotStored.set(runId, ending);
  }

  override startRun(run: { sessionId: string; runId: string; query: string; ownerKeyDigest: string }) {
    if (this.startFails) return Promise.reject(new Error('database down'));
    this.started.push(run);
    this.owners.set(run.sessionId, run.ownerKeyDigest);
    return Promise.resolve();
  }

  override releaseRun(runId: string): void {
    this.released.push(runId);
  }

  override findOwnedSession(sessionId: string, ownerKeyDigest: string) {
    const owned = this.owners.get(sessionId) === ownerKeyDigest;
    return Promise.resolve(
      owned ? ({ sessionId } as Awaited<ReturnType<RunRepository['findOwnedSession']>>) : null,
    );
  }

  override findLatestRunBefore() {
    if (this.readsFail) return Promise.reject(new Error('database down'));
    return Promise.resolve(this.previousRuns[0] ?? null);
  }

  override findPreviousCompletedRun() {
    if (this.readsFail) return Promise.reject(new Error('database down'));
    return Promise.resolve(this.previousRuns[0] ?? null);
  }
}

/** Journals that write into one MemoryJournalStore, as RunJournalRepository writes into MySQL. */
export class MemoryJournalRepository extends RunJournalRepository {
  constructor(private readonly store: MemoryJournalStore) {
    super(null as never, null as never, null as never, null as never);
  }

  override open(runId: string): RunJournal {
    return new RunJournal(runId, this.store);
  }
}

/** A retrieved knowledge base document, as lookup_knowledge projects it. */
export const KNOWLEDGE_DOC = {
  document_id: 'doc-1',
  title: 'HikariCP runbook',
  source: 'runbooks/hikari.md',
  breadcrumb: 'Runbooks > DB',
  excerpt: 'Find the connection leak before raising maximumPoolSize.',
};

/** lookup_knowledge without a search backend: `docs` are its hits, or it fails like an unreachable backend. */
export function fakeKnowledgeTool(docs: (typeof KNOWLEDGE_DOC)[] | 'FAILS'): AnyHarnessTool {
  const tool = {
    name: 'lookup_knowledge',
    description: 'Fake knowledge search for tests.',
    schema: z.object({ query: z.string().min(1) }),
    readOnly: true as const,
    failureCodes: ['KNOWLEDGE_BACKEND_UNAVAILABLE'],
    countedList: 'evidence',
    execute: () =>
      docs === 'FAILS'
        ? Promise.reject(
            new ToolFailure('KNOWLEDGE_BACKEND_UNAVAILABLE', 'The knowledge base is unavailable.'),
          )
        : Promise.resolve(docs),
    project: (raw: typeof docs) => ({
      evidenceStatus: (raw as unknown[]).length > 0 ? ('EVIDENCE_FOUND' as const) : ('NO_EVIDENCE' as const),
      result: { evidence: raw },
      truncated: false,
    }),
    summarizeArgs: () => ({}),
    label: 'knowledge base',
    evidenceOf: () => ({
      source_type: 'KNOWLEDGE',
      source: 'knowledge base',
      scope: '',
      values: [],
      demo: false,
    }),
  };
  return tool as unknown as AnyHarnessTool;
}

export interface ChatKit extends DiagnosisKit {
  runs: MemoryRunRepository;
  useCase: ChatApplicationUseCase;
  /** The use case's metrics: runs started and finished (the memory journals count no calls). */
  metrics: ServiceMetrics;
  /** What the use case handed the notifier (libs/notify has its own specs for what happens next). */
  notified: FinishedRunSummary[];
  /** The runs the use case recorded as owed to targets (RunNotifier.owe), in order with `notified`. */
  owed: { runId: string; trigger: string; names: readonly string[] | undefined; notifiedBefore: number }[];
  completions: RunCompletions;
}

/** The notification targets the unit kit knows. */
export const UNIT_NOTIFY_TARGETS = ['ops-webhook', 'ops-slack'];

/**
 * ChatApplicationUseCase as the service wires it, over the diagnosis kit: the real router, gateway,
 * boundary, pipeline and knowledge guard; memory for MySQL and Redis; the fake chat model for the LLM.
 */
export function chatKit(
  roles: Record<string, StubReply[]>,
  options: {
    harnessEnv?: Record<string, string>;
    knowledge?: (typeof KNOWLEDGE_DOC)[] | 'FAILS';
  } = {},
): ChatKit {
  const notified: FinishedRunSummary[] = [];
  const owed: ChatKit['owed'] = [];
  const journal = new MemoryJournalStore();
  const kit = diagnosisKit(roles, { harnessEnv: options.harnessEnv, journal });
  const runs = new MemoryRunRepository();
  const contexts = new RunContextFactory(kit.config, new MemoryJournalRepository(journal));
  const router = new IntentRouter(kit.gateway, new HarnessRetryExecutor());
  const tools = { lookupKnowledge: fakeKnowledgeTool(options.knowledge ?? []) } as unknown as EvidenceTools;
  const metrics = new ServiceMetrics();
  const completions = new RunCompletions();
  const useCase = new ChatApplicationUseCase(
    runs,
    contexts,
    router,
    kit.gateway,
    kit.boundary,
    tools,
    kit.pipeline,
    kit.knowledgeGuard,
    kit.config as HarnessConfig,
    { allowlist: EMPTY_RELEASE_ALLOWLIST },
    metrics,
    {
      unknownTargets: (names: readonly string[]) =>
        names.filter((name) => !UNIT_NOTIFY_TARGETS.includes(name)),
      notifyRunFinished: (run: FinishedRunSummary) => notified.push(run),
      owe: async (runId: string, trigger: string, names?: readonly string[]) => {
        owed.push({ runId, trigger, names, notifiedBefore: notified.length });
      },
    } as unknown as RunNotifier,
    completions,
    new IngressBurst(),
  );
  return { ...kit, runs, useCase, metrics, notified, owed, completions };
}

/** A chat stream that keeps what it would have sent. */
export function recordingStream(): { stream: ChatEventStream; events: ChatEvent[] } {
  const events: ChatEvent[] = [];
  return { stream: new ChatEventStream((event) => events.push(event)), events };
}
