import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { HumanMessage } from '@langchain/core/messages';
import type { FailureCode, Intent } from '@app/contracts';
import {
  ErrorOutcome,
  errorOutcome,
  harnessConfig,
  HarnessConfig,
  ModelGateway,
  RunContext,
  RunCancelled,
  RunContextFactory,
  textOf,
  ToolBoundary,
} from '@app/harness';
import {
  fallbackReport,
  findReleaseViolations,
  inertText,
  KnowledgeGuard,
  KnowledgeRefusal,
  releaseConfig,
  ReleaseConfig,
} from '@app/guards';
import { RunEnd, ServiceMetrics } from '@app/metrics';
import { RunNotifier } from '@app/notify';
import { EvidenceTools } from '@app/tools';
import { describeDatabaseError, FinishRun, RunRepository } from '@app/trace';
import {
  checkKnowledgeAnswer,
  KnowledgeAnswer,
  notFoundKnowledgeAnswer,
  RetrievedDocument,
} from './answers/knowledge-answer';
import { DiagnosisPipeline, throwIfCancelled } from './diagnosis/diagnosis-pipeline';
import { IngressBurst } from './ingress-burst';
import { previousTurnOf } from './diagnosis/previous-turn';
import { IntentRouter } from './routing/intent-router';
import { ChatEvent, ChatEventStream } from './sse/chat-events';
import { RunAlert, RunCompleted, RunCompletions } from './run-completions';

export interface ChatRequest {
  sessionId?: string;
  query: string;
  /** The calling API key (SHA-256 hex): a new session belongs to it, a continued one must. */
  ownerKeyDigest: string;
  /** Notification targets to send the run's outcome to once its terminal state is stored. */
  notify?: readonly string[];
}

/**
 * A run whose session and run rows exist (RunRepository.startRun), ready to execute: a chat request's, or
 * one started by code (an alert), which sets its intent and the tools' time anchor instead of routing.
 */
export interface StartedRun {
  sessionId: string;
  runId: string;
  query: string;
  /** The session had earlier runs: previous-turn lookups apply. */
  continued: boolean;
  /** Decided by code (an alert-started run is a diagnosis): no routing call. Absent: the router decides. */
  intent?: 'DIAGNOSIS';
  timeAnchor?: Date | null;
  /** The alert group that started the run, for its completion listeners; absent for a chat request. */
  alert?: RunAlert;
  /** A chat request's notification targets (alert runs are notified by their completion listener). */
  notify?: readonly string[];
}

/** A request whose session is known to be the caller's (or new): ready to queue and stream. */
export interface OpenedChat {
  sessionId: string;
  continued: boolean;
  query: string;
  ownerKeyDigest: string;
  notify?: readonly string[];
}

/** The session_id was never issued, or belongs to another key; thrown before the run or any event exists. */
export class UnknownSession extends Error {
  override readonly name = 'UnknownSession';
}

type Terminal = Omit<
  FinishRun,
  'modelCalls' | 'toolCalls' | 'inputTokens' | 'outputTokens' | 'totalTokens' | 'durationMs'
>;

/** How a run ended: what MySQL stores, what the client is told once that is stored, and how it counts. */
interface Ending {
  terminal: Terminal;
  announce(stream: ChatEventStream): void;
  end: RunEnd;
}

const SUCCESS: RunEnd = { outcome: 'SUCCESS', reason: 'NONE' };

/** The text a client gets with each failure code (listed in docs/codes.md). */
export const FAILURE_MESSAGES: Record<FailureCode, string> = {
  ROUTING_UNAVAILABLE:
    '当前暂时无法处理该请求，请稍后重试 / The request cannot be handled right now; please try again later.',
  MODEL_UNAVAILABLE:
    '模型服务暂时不可用，请稍后重试 / The model service is unavailable; please try again later.',
  MODEL_RATE_LIMITED:
    '模型服务当前请求过多，请稍后重试 / The model service is rate limiting requests; please try again in a moment.',
  // Final classes: retrying cannot help, so the text says who can (docs/provider-failures.md).
  MODEL_AUTH_FAILED:
    '模型服务拒绝了本服务的访问凭据，需要管理员修正配置 / The model service rejected this service’s credentials; an operator must fix the configuration.',
  MODEL_QUOTA_EXHAUSTED:
    '模型服务账户的余额或配额已用尽，需要管理员处理 / The model service account has no balance or quota left; an operator must top it up.',
  MODEL_NOT_FOUND:
    '配置的模型在模型服务中不存在，需要管理员修正模型名称 / The configured model does not exist at the model service; an operator must correct the model name.',
  MODEL_ENDPOINT_INVALID:
    '模型服务的地址配置有误，需要管理员修正 / The model service address is misconfigured; an operator must correct it.',
  MODEL_TLS_FAILED:
    '无法验证模型服务的 TLS 证书，需要管理员处理 / The model service’s TLS certificate is not trusted; an operator must fix the certificate or the trust settings.',
  MODEL_CONTENT_FILTERED:
    '模型服务的内容安全策略拒绝了该请求，请换一种表述 / The model service’s content filter refused this request; please rephrase the question.',
  MODEL_CONTEXT_TOO_LONG:
    '请求超出了模型可处理的长度，请缩短问题或缩小范围 / The request is too long for the model; please shorten the question or narrow its scope.',
  MODEL_REQUEST_REJECTED:
    '模型服务拒绝了该请求，请联系管理员 / The model service rejected the request; please ask the operator to check the service log.',
  MODEL_BAD_RESPONSE:
    '模型服务返回了无法使用的应答，请联系管理员 / The model service returned an unusable answer; please ask the operator to check the service log.',
  BUDGET_EXHAUSTED:
    '本次诊断超出了资源预算，请缩小问题范围后重试 / The run used up its budget; narrow the question and try again.',
  RUN_TIMEOUT: '本次请求处理超时，请稍后重试 / The request took too long; please try again later.',
  KNOWLEDGE_UNAVAILABLE:
    '知识库暂时无法检索，请稍后重试 / The knowledge base could not be searched; please try again later.',
  RUN_NOT_RECORDED:
    '服务暂时无法记录本次请求，未开始处理，请稍后重试 / The service could not record this run, so it did not start; please try again later.',
  INTERNAL_ERROR: '处理请求时出现内部错误 / An internal error occurred.',
};

/** How long the terminal write waits for interrupted calls to record their last step. */
const INTERRUPTED_CALL_WAIT_MS = 5000;

/** What SYSTEM_CHAT answers when the model's reply fails the release checks: fixed text, never model output. */
export const SYSTEM_CHAT_CAPABILITIES =
  '我是 SuperBiz 故障诊断助手：可以基于已验证的证据诊断故障，并从内部知识库回答问题。 / ' +
  'I am the SuperBiz diagnosis assistant: I diagnose faults from verified evidence and answer questions from the internal knowledge base.';

/**
 * One chat request end to end: session and run rows, the RunContext, routing, the
 * intent's executor, exactly one terminal state in MySQL even when a step throws, and the SSE events
 * in their fixed order. The terminal state is stored before the client hears it: `content`/`failure` +
 * `done` follow the committed terminal write of the run's journal, and a failed commit is announced as
 * INTERNAL_ERROR instead.
 * The controller only hands over the request, the stream and the client's signal.
 */
@Injectable()
export class ChatApplicationUseCase {
  private readonly logger = new Logger(ChatApplicationUseCase.name);

  constructor(
    private readonly runs: RunRepository,
    private readonly contexts: RunContextFactory,
    private readonly router: IntentRouter,
    private readonly gateway: ModelGateway,
    private readonly boundary: ToolBoundary,
    private readonly tools: EvidenceTools,
    private readonly diagnosis: DiagnosisPipeline,
    private readonly knowledgeGuard: KnowledgeGuard,
    @Inject(harnessConfig.KEY) private readonly config: HarnessConfig,
    @Inject(releaseConfig.KEY) private readonly release: ReleaseConfig,
    private readonly metrics: ServiceMetrics,
    private readonly notifier: RunNotifier,
    private readonly completions: RunCompletions,
    private readonly ingress: IngressBurst,
  ) {}

  /** Of a request's notification targets, those that are not configured. */
  unknownNotifyTargets(names: readonly string[]): string[] {
    return this.notifier.unknownTargets(names);
  }

  /**
   * What must be known before the request may queue or stream: a continued session exists and belongs to
   * the calling key (one indexed read; a new session needs none). Throws UnknownSession, or the database
   * error when MySQL cannot answer.
   */
  async open(request: ChatRequest): Promise<OpenedChat> {
    if (request.sessionId && !(await this.runs.findOwnedSession(request.sessionId, request.ownerKeyDigest))) {
      throw new UnknownSession();
    }
    return {
      sessionId: request.sessionId ?? randomUUID(),
      // A session this request creates has no earlier runs: no previous-turn lookups for it.
      continued: request.sessionId !== undefined,
      query: request.query,
      ownerKeyDigest: request.ownerKeyDigest,
      notify: request.notify,
    };
  }

  /**
   * Runs an admitted request. `metadata` is the first thing it does: the client hears its run id before
   * any slow work (the run's row, routing, model calls), so the first event does not wait for MySQL
   * under load. While the service is still taking in a burst of connections, that work waits until it
   * has (IngressBurst, at most MAX_HOLD_MS), so the clients still connecting hear their first event first;
   * once started, its model and tool calls wait the same way (the RunContext's pace, IngressBurst.drained).
   * A start the journal cannot record ends the stream with RUN_NOT_RECORDED.
   */
  async handle(chat: OpenedChat, stream: ChatEventStream, clientSignal: AbortSignal): Promise<void> {
    const { sessionId, continued } = chat;
    const runId = randomUUID();
    stream.metadata(sessionId, runId);
    await this.ingress.settled();
    try {
      await this.runs.startRun({
        sessionId,
        runId,
        query: chat.query,
        ownerKeyDigest: chat.ownerKeyDigest,
      });
    } catch (error) {
      // The run does not exist: no terminal state to store, and its run_id has no trace.
      this.logger.error(
        `run ${runId} of session ${sessionId} not started: its start was not recorded (RUN_NOT_RECORDED): ${describeDatabaseError(error)}`,
      );
      stream.failure('RUN_NOT_RECORDED', FAILURE_MESSAGES.RUN_NOT_RECORDED);
      // Counted as the client heard it, so an operator can alert on runs the database did not take.
      this.metrics.runStarted();
      this.metrics.runFinished(null, { outcome: 'FAILED', reason: 'RUN_NOT_RECORDED' }, 0);
      return;
    }
    // Owed from the start: a replica that stops before the run ends leaves its notifications to another.
    if (chat.notify && chat.notify.length > 0) await this.notifier.owe(runId, 'chat', chat.notify);
    await this.runStarted(
      { sessionId, runId, query: chat.query, continued, notify: chat.notify },
      stream,
      clientSignal,
    );
  }

  /**
   * Executes a run whose rows exist and whose stream has had its metadata: exactly one terminal state
   * stored (or handed to the lease heartbeat), the stream's events in order, then the run's completion to
   * the RunCompletions listeners.
   */
  async runStarted(run: StartedRun, stream: ChatEventStream, parentSignal: AbortSignal): Promise<void> {
    const { sessionId, runId } = run;
    this.metrics.runStarted();
    try {
      const ctx = this.contexts.start({
        sessionId,
        runId,
        parentSignal,
        timeAnchor: run.timeAnchor ?? null,
        pace: () => this.ingress.drained(),
      });
      const started = Date.now();
      let ending: Ending;
      try {
        ctx.journal.event('RUN', 'RUN_STARTED', { query_chars: run.query.length });
        ending = await this.execute(ctx, run, stream);
      } catch (error) {
        ending = this.failed(ctx, error, stream);
      } finally {
        ctx.close();
      }
      await this.awaitInterruptedCalls(ctx);
      const stored = await this.persist(ctx, ending.terminal, started);
      if (stored) {
        ending.announce(stream);
        // After the terminal state is stored and announced, in the background: delivery never delays or
        // changes the run's end. An unstored end notifies nobody (the notifier would refuse it anyway).
        if (run.notify && run.notify.length > 0) {
          this.notifier.notifyRunFinished({
            runId,
            sessionId,
            trigger: 'chat',
            targets: run.notify,
            alertLabels: null,
          });
        }
      } else stream.failure('INTERNAL_ERROR', FAILURE_MESSAGES.INTERNAL_ERROR);
      // Counted as the client heard it: an end that could not be stored is the INTERNAL_ERROR it was told.
      this.metrics.runFinished(
        ctx.journal.intent,
        stored || ending.end.outcome === 'CANCELLED'
          ? ending.end
          : { outcome: 'FAILED', reason: 'INTERNAL_ERROR' },
        Date.now() - started,
      );
      this.completions.completed(completionOf(run, ending, stored));
    } finally {
      // Stored or not, this replica is done with the run; an unstored end is closed once its lease runs out.
      this.runs.releaseRun(runId);
    }
  }

  private async execute(ctx: RunContext, run: StartedRun, stream: ChatEventStream): Promise<Ending> {
    const { query, continued } = run;
    let intent: Intent;
    if (run.intent) {
      intent = run.intent;
      // Decided by code, not by the router: the timeline says so.
      ctx.journal.event('ROUTING', 'ROUTED', { intent, by: 'CODE' });
    } else {
      stream.status('ROUTING', '正在理解问题 / understanding the request');
      const last = continued ? await this.runs.findLatestRunBefore(ctx.sessionId, ctx.runId) : null;
      intent = await this.router.route(ctx, {
        query,
        last_intent: last?.intent ?? null,
        last_user_query: last?.query ?? null,
      });
    }
    ctx.journal.setIntent(intent);
    // Phase boundary: the run's start, its routing and its intent become visible to trace readers.
    await ctx.journal.flush();
    const routed = ctx.withIntent(intent);
    switch (intent) {
      case 'SYSTEM_CHAT':
        return this.systemChat(routed, query, stream);
      case 'KNOWLEDGE_QUERY':
        return this.knowledgeQuery(routed, query, stream);
      case 'DIAGNOSIS':
        return this.diagnose(routed, query, continued, stream);
    }
  }

  private async systemChat(ctx: RunContext, query: string, stream: ChatEventStream): Promise<Ending> {
    stream.status('ANSWERING', '正在回答 / answering');
    const reply = await this.gateway.invoke(ctx, {
      role: 'system-chat',
      messages: [new HumanMessage(query)],
    });
    ctx.throwIfStopped();
    let answer = textOf(reply.content);
    // The same deterministic release checks as every other channel that releases model text; nothing is cited.
    const violations = findReleaseViolations([answer], { documents: [] }, this.release.allowlist);
    if (violations.length > 0) {
      ctx.journal.event('RELEASE', 'RELEASE_CHECK_FAILED', { violations: violations.join(',') });
      answer = SYSTEM_CHAT_CAPABILITIES;
    }
    return {
      terminal: { status: 'SUCCESS', releaseOutcome: 'SUCCESS' },
      announce: (out) => out.content('SYSTEM_ANSWER', { answer }, 'SUCCESS'),
      end: SUCCESS,
    };
  }

  private async knowledgeQuery(ctx: RunContext, query: string, stream: ChatEventStream): Promise<Ending> {
    stream.status('KNOWLEDGE_SEARCHING', '正在检索知识库 / searching the knowledge base');
    const lookup = await this.boundary.execute(
      ctx,
      this.tools.lookupKnowledge,
      `knowledge_query_${ctx.runId}`,
      { query },
    );
    // docs/fallbacks-and-failures.md: a lookup that failed is never shown as "nothing in the knowledge base".
    if (lookup.isError) {
      ctx.journal.event('RELEASE', 'KNOWLEDGE_UNAVAILABLE', {
        error_code: String(lookup.agentResult.error_code ?? 'TOOL_FAILED'),
      });
      return this.failure('KNOWLEDGE_UNAVAILABLE');
    }
    const retrieved = (lookup.agentResult.evidence as RetrievedDocument[] | undefined) ?? [];
    let answer = notFoundKnowledgeAnswer();
    let refusal: KnowledgeRefusal | null = null;
    if (retrieved.length > 0) {
      stream.status('ANSWERING', '正在根据知识库回答 / answering from the knowledge base');
      const reply = await this.gateway.invoke(ctx, {
        role: 'knowledge-answer',
        messages: [new HumanMessage(JSON.stringify({ query, evidence: retrieved }))],
      });
      const checked = checkKnowledgeAnswer(textOf(reply.content), retrieved);
      // Documents were found: an unreadable reply is the model's failure, never "nothing in the knowledge base".
      if (checked === null) refusal = 'KNOWLEDGE_ANSWER_INVALID';
      else answer = checked;
      if (answer.found) refusal = await this.reviewKnowledge(ctx, query, answer, stream);
    }
    ctx.throwIfStopped();
    ctx.journal.event('RELEASE', 'KNOWLEDGE_ANSWERED', {
      found: answer.found,
      references: answer.references.length,
      refused: refusal !== null,
      ...(refusal !== null ? { reason: refusal } : {}),
    });
    if (refusal !== null) {
      // The fixed text under the fallback content type, so a client switching on it can tell.
      const fallback = fallbackReport('KNOWLEDGE_UNVERIFIED', null);
      return {
        terminal: { status: 'FALLBACK', releaseOutcome: 'FALLBACK', fallbackReason: refusal },
        announce: (out) => out.content('FALLBACK', fallback, 'FALLBACK'),
        end: { outcome: 'FALLBACK', reason: fallback.type },
      };
    }
    const { found: _found, ...checked } = answer;
    // The cited documents are shown as data: a dangerous string in a title, heading or excerpt is inert.
    const payload = {
      ...checked,
      references: checked.references.map((doc) => ({
        ...doc,
        title: inertText(doc.title),
        source: inertText(doc.source),
        breadcrumb: inertText(doc.breadcrumb),
        excerpt: inertText(doc.excerpt),
      })),
    };
    return {
      terminal: { status: 'SUCCESS', releaseOutcome: 'SUCCESS' },
      announce: (out) => out.content('KNOWLEDGE_ANSWER', payload, 'SUCCESS'),
      end: SUCCESS,
    };
  }

  /** The isolated check of a drafted knowledge answer; null = release it, otherwise why it is refused. */
  private async reviewKnowledge(
    ctx: RunContext,
    query: string,
    answer: KnowledgeAnswer,
    stream: ChatEventStream,
  ): Promise<KnowledgeRefusal | null> {
    ctx.throwIfStopped();
    stream.status('SEMANTIC_VALIDATING', '正在核对回答与引用文档 / checking the answer against its sources');
    const review = await this.knowledgeGuard.review(
      ctx,
      query,
      { answer: answer.answer, limitations: answer.limitations },
      answer.references,
    );
    return review.release ? null : review.reason;
  }

  private async diagnose(
    ctx: RunContext,
    query: string,
    continued: boolean,
    stream: ChatEventStream,
  ): Promise<Ending> {
    const previous = continued ? await this.runs.findPreviousCompletedRun(ctx.sessionId, ctx.runId) : null;
    const result = await this.diagnosis.run(
      ctx,
      query,
      previousTurnOf(previous, this.config.previousTurn),
      stream,
    );
    // A passed deadline has already become the fallback inside the pipeline; only the client leaving stops here.
    throwIfCancelled(ctx);
    if (result.outcome === 'SUCCESS') {
      return {
        terminal: {
          status: 'SUCCESS',
          releaseOutcome: 'SUCCESS',
          conclusion: result.conclusion,
          publishedResult: result.publishedResult,
        },
        announce: (out) => out.content('DIAGNOSIS_REPORT', result.report, 'SUCCESS'),
        end: SUCCESS,
      };
    }
    return {
      terminal: { status: 'FALLBACK', releaseOutcome: 'FALLBACK', fallbackReason: result.fallbackReason },
      announce: (out) => out.content('FALLBACK', result.fallback, 'FALLBACK'),
      end: { outcome: 'FALLBACK', reason: result.fallback.type },
    };
  }

  /** Maps what ended the run to a stable failure (or silence, when the client left). */
  private failed(ctx: RunContext, error: unknown, stream: ChatEventStream): Ending {
    const outcome = errorOutcome(error);
    const code = failureCodeOf(outcome);
    if (code === null) {
      stream.close();
      const reason: unknown = ctx.signal.reason;
      const by = reason instanceof RunCancelled ? reason.by : 'CLIENT_DISCONNECTED';
      return {
        terminal: { status: 'CANCELLED', releaseOutcome: 'CANCELLED', errorCode: by },
        announce: () => undefined,
        end: { outcome: 'CANCELLED', reason: by },
      };
    }
    if (code === 'INTERNAL_ERROR') {
      // For the operator only (with run and session ids): the client gets the fixed message, never this.
      ctx.logger(ChatApplicationUseCase.name).error('run failed: INTERNAL_ERROR', error);
    }
    // The run row keeps which limit was hit; the client hears only BUDGET_EXHAUSTED.
    return this.failure(code, outcome.source === 'BUDGET' ? outcome.code : code);
  }

  private failure(code: FailureCode, errorCode: string = code): Ending {
    return {
      terminal: { status: 'FAILED', releaseOutcome: 'FAILED', errorCode },
      announce: (out) => out.failure(code, FAILURE_MESSAGES[code]),
      end: { outcome: 'FAILED', reason: code },
    };
  }

  /**
   * A deadline or a cancellation ends the run while a model or tool call still records its last step
   * (its ERROR record, TOOL_FINISHED); the terminal write waits for them, so the run's timeline ends with
   * RUN_FINISHED. Their last step is one bounded store write; if they outlast the wait, they are written
   * after it, and the log says so.
   */
  private async awaitInterruptedCalls(ctx: RunContext): Promise<void> {
    if (await ctx.settled(INTERRUPTED_CALL_WAIT_MS)) return;
    ctx
      .logger(ChatApplicationUseCase.name)
      .warn(
        `calls of the run still running ${INTERRUPTED_CALL_WAIT_MS} ms after it ended; their rows follow RUN_FINISHED`,
      );
  }

  /**
   * Stores the terminal state together with everything the run's journal still holds, in one
   * transaction; false when it could not be stored (then the client must not hear an answer).
   */
  private async persist(ctx: RunContext, terminal: Terminal, started: number): Promise<boolean> {
    const totals = ctx.budget.totals();
    const log = ctx.logger(ChatApplicationUseCase.name);
    let stored: boolean;
    try {
      stored = await ctx.journal.finish({
        ...terminal,
        modelCalls: totals.modelCalls,
        toolCalls: totals.toolCalls,
        inputTokens: totals.inputTokens,
        outputTokens: totals.outputTokens,
        totalTokens: totals.totalTokens,
        durationMs: Date.now() - started,
      });
      if (!stored) log.error('the run had already left RUNNING; its terminal state was not stored');
    } catch (error) {
      log.error(`the terminal state could not be stored: ${describeDatabaseError(error)}`);
      stored = false;
    }
    if (!stored) {
      // The client hears INTERNAL_ERROR (or nothing, when it left); the lease heartbeat makes the run row say so.
      this.runs.endingNotStored(
        ctx.runId,
        terminal.status === 'CANCELLED'
          ? { status: 'CANCELLED', errorCode: terminal.errorCode ?? 'CLIENT_DISCONNECTED' }
          : { status: 'FAILED', errorCode: 'INTERNAL_ERROR' },
      );
    }
    return stored;
  }
}

/**
 * The run's completion as its listeners hear it: the terminal state as stored, and exactly what the
 * client was (or would have been) told — a released report, the fixed fallback, or a failure.
 */
function completionOf(run: StartedRun, ending: Ending, stored: boolean): RunCompleted {
  const terminal: Terminal = stored
    ? ending.terminal
    : { status: 'FAILED', releaseOutcome: 'FAILED', errorCode: 'INTERNAL_ERROR' };
  const events: ChatEvent[] = [];
  const told = new ChatEventStream((event) => events.push(event));
  told.metadata(run.sessionId, run.runId);
  if (stored) ending.announce(told);
  else told.failure('INTERNAL_ERROR', FAILURE_MESSAGES.INTERNAL_ERROR);
  const content = events.find((event) => event.event === 'content');
  const failure = events.find((event) => event.event === 'failure');
  return {
    sessionId: run.sessionId,
    runId: run.runId,
    origin: run.alert ? 'ALERT' : 'CHAT',
    alert: run.alert ?? null,
    stored,
    status: terminal.status,
    releaseOutcome: terminal.releaseOutcome,
    conclusion: terminal.conclusion ?? null,
    fallbackReason: terminal.fallbackReason ?? null,
    errorCode: terminal.errorCode ?? null,
    content: content?.event === 'content' ? content.data : null,
    failure: failure?.event === 'failure' ? failure.data : null,
  };
}

/** What ended a run, as the client's failure code; null when the client itself went away. */
function failureCodeOf(outcome: ErrorOutcome): FailureCode | null {
  switch (outcome.source) {
    case 'RUN_STOP':
      return outcome.code === 'CANCELLED' ? null : 'RUN_TIMEOUT';
    case 'BUDGET':
      return 'BUDGET_EXHAUSTED';
    case 'MODEL_CALL':
      return providerFailureCode(outcome.code) ?? 'MODEL_UNAVAILABLE';
    case 'RETRY_EXHAUSTED': {
      // Retries used up on the provider's failures: its class; on unreadable routing answers: routing.
      const last = outcome.lastCode === null ? null : providerFailureCode(outcome.lastCode);
      return last ?? (outcome.operation === 'intent_router' ? 'ROUTING_UNAVAILABLE' : 'MODEL_UNAVAILABLE');
    }
    case 'UNKNOWN':
      return 'INTERNAL_ERROR';
  }
}

/** The client's code for a provider failure class; the transient transport ones share MODEL_UNAVAILABLE. */
export function providerFailureCode(code: string): FailureCode | null {
  switch (code) {
    case 'MODEL_TIMEOUT':
    case 'MODEL_UNAVAILABLE':
    case 'MODEL_UNREACHABLE':
      return 'MODEL_UNAVAILABLE';
    case 'MODEL_RATE_LIMITED':
    case 'MODEL_AUTH_FAILED':
    case 'MODEL_QUOTA_EXHAUSTED':
    case 'MODEL_NOT_FOUND':
    case 'MODEL_ENDPOINT_INVALID':
    case 'MODEL_TLS_FAILED':
    case 'MODEL_CONTENT_FILTERED':
    case 'MODEL_CONTEXT_TOO_LONG':
    case 'MODEL_REQUEST_REJECTED':
    case 'MODEL_BAD_RESPONSE':
      return code;
    default:
      return null;
  }
}
