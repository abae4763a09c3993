import { HarnessConfig, HarnessRetryExecutor, ModelGateway, ToolBoundary, ToolCatalog } from '@app/harness';
import { EMPTY_RELEASE_ALLOWLIST, EvidenceGuard, KnowledgeGuard, SemanticGuard } from '@app/guards';
import { BudgetAudit } from '../../libs/harness/src/run/budget-audit';
import { DiagnosisAgent } from '../../libs/chat/src/diagnosis/diagnosis-agent';
import { DiagnosisPipeline } from '../../libs/chat/src/diagnosis/diagnosis-pipeline';
import type { StatusCode } from '@app/contracts';
import { ServiceMetrics } from '@app/metrics';
import { FakeChatModel } from './fake-chat-model';
import { fakeLogTool } from './fake-tools';
import type { StubReply } from './stub-llm/stub-script';
import {
  MemoryInvocationStore,
  MemoryJournalStore,
  MemoryToolInvocations,
  unitGateway,
  unitHarnessConfig,
} from './unit-harness';

/** What the fake log tool returns: every fact the scripted draft states, so it is grounded. */
export const LOG_LINES = [
  'DRAFT-MARKER payment timeouts come from HikariCP pool exhaustion in order-service',
  'DRAFT-MARKER 84 HikariPool connection timeouts in the last 30 minutes',
];

/** The Diagnosis Agent's turns on the fake log tool: one log query (call_logs_1), then `finalDraft`. */
export function agentTurnsOnFakeLogs(finalDraft: string): StubReply[] {
  return [
    {
      content: '1. check order-service logs\n2. conclude',
      tool_calls: [{ id: 'call_logs_1', name: 'query_logs', arguments: { query: 'HikariPool', count: 2 } }],
    },
    { content: finalDraft },
  ];
}

export interface DiagnosisKit {
  config: HarnessConfig;
  model: FakeChatModel;
  gateway: ModelGateway;
  store: MemoryInvocationStore;
  journal: MemoryJournalStore;
  catalog: ToolCatalog;
  boundary: ToolBoundary;
  agent: DiagnosisAgent;
  evidenceGuard: EvidenceGuard;
  semanticGuard: SemanticGuard;
  knowledgeGuard: KnowledgeGuard;
  pipeline: DiagnosisPipeline;
  statuses: StatusCode[];
  observer: { status(code: StatusCode): void };
}

/**
 * The diagnosis path as the service wires it — DiagnosisAgent (LangGraph's ReAct loop), ToolBoundary,
 * EvidenceGuard, SemanticGuard, DiagnosisPipeline over the real ModelGateway — with the fake chat model
 * for the provider, a Map for Redis and memory for MySQL. `roles` is a stub-LLM script's roles.
 */
export function diagnosisKit(
  roles: Record<string, StubReply[]>,
  options: { harnessEnv?: Record<string, string>; journal?: MemoryJournalStore } = {},
): DiagnosisKit {
  const config = unitHarnessConfig(options.harnessEnv);
  const model = new FakeChatModel({ roles });
  const gateway = unitGateway(model, config);
  const store = new MemoryInvocationStore(config);
  const journal = options.journal ?? new MemoryJournalStore();
  const catalog = new ToolCatalog(new ServiceMetrics());
  catalog.register(
    fakeLogTool({
      execute: () => Promise.resolve({ lines: LOG_LINES, secret_marker: 'RAW-ONLY-MARKER-7f3a' }),
    }),
  );
  const boundary = new ToolBoundary(store, new BudgetAudit(), config);
  const retry = new HarnessRetryExecutor();
  const agent = new DiagnosisAgent(gateway, boundary, catalog, config);
  const evidenceGuard = new EvidenceGuard(store, gateway, new MemoryToolInvocations(journal), catalog);
  const semanticGuard = new SemanticGuard(gateway, retry, config);
  const release = { allowlist: EMPTY_RELEASE_ALLOWLIST };
  const knowledgeGuard = new KnowledgeGuard(gateway, retry, config, release);
  const pipeline = new DiagnosisPipeline(agent, evidenceGuard, semanticGuard, config, release);
  const statuses: StatusCode[] = [];
  return {
    config,
    model,
    gateway,
    store,
    journal,
    catalog,
    boundary,
    agent,
    evidenceGuard,
    semanticGuard,
    knowledgeGuard,
    pipeline,
    statuses,
    observer: { status: (code) => statuses.push(code) },
  };
}
