import { randomUUID } from 'node:crypto';
import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import type { AlertOutcome } from '@app/contracts';
import { RunCancelled } from '@app/harness';
import {
  BackgroundTicket,
  ChatApplicationUseCase,
  ChatCapacity,
  ChatEventStream,
  StartedRun,
} from '@app/chat';
import { ServiceMetrics } from '@app/metrics';
import { RunNotifier } from '@app/notify';
import { MAX_QUERY_CHARS } from '@app/tools';
import { ALERT_SESSION_OWNER, AlertGroupRepository, describeDatabaseError, RunRepository } from '@app/trace';
import { alertsConfig, AlertsConfig } from './alerts.config';
import type { AlertmanagerWebhookDto } from './alertmanager-webhook.dto';
import { investigationQueryOf, noticeOf, timeAnchorOf } from './alert-investigation-query';

/** What one notification did: the run it started, or the named reason it started none. */
export interface IngestResult {
  outcome: AlertOutcome;
  session_id: string;
  run_ids: string[];
}

/** The alert store could not decide or start the run (MySQL away): nothing was started. */
export class AlertStoreUnavailable extends Error {
  override readonly name = 'AlertStoreUnavailable';
}

/**
 * One alert notification end to end: a place in the alert share is reserved, the group's dedup decision
 * is taken in MySQL (AlertGroupRepository: one investigation per group at a time, the window, resolved,
 * the hourly cap), the run's rows are written, and the run executes in the background through the same
 * ChatApplicationUseCase as a chat (Harness, guards, release policy, journal) with no client. The caller
 * hears the outcome at once.
 */
@Injectable()
export class AlertIngestService implements BeforeApplicationShutdown {
  private readonly logger = new Logger(AlertIngestService.name);
  private readonly queued = new Set<BackgroundTicket>();
  private readonly investigations = new Set<Promise<void>>();

  constructor(
    private readonly groups: AlertGroupRepository,
    private readonly runs: RunRepository,
    private readonly useCase: ChatApplicationUseCase,
    private readonly capacity: ChatCapacity,
    @Inject(alertsConfig.KEY) private readonly config: AlertsConfig,
    private readonly metrics: ServiceMetrics,
    private readonly notifier: RunNotifier,
  ) {}

  async ingest(body: AlertmanagerWebhookDto): Promise<IngestResult> {
    const result = await this.decideAndStart(body);
    this.count(body.status, result.outcome);
    return result;
  }

  private count(status: 'firing' | 'resolved', outcome: AlertOutcome): void {
    this.metrics.alertGroupReceived(status);
    switch (outcome) {
      case 'INVESTIGATION_STARTED':
        return this.metrics.alertInvestigationStarted();
      case 'RUN_IN_PROGRESS':
      case 'DUPLICATE_WITHIN_WINDOW':
      case 'ALREADY_INVESTIGATED':
        return this.metrics.alertGroupDeduplicated(outcome);
      case 'HOURLY_CAP_REACHED':
        return this.metrics.alertInvestigationCapped();
      case 'ALERT_QUEUE_FULL':
        return this.metrics.capacityRejected('ALERT_QUEUE_FULL');
      case 'RESOLVED_RECORDED':
        return;
    }
  }

  private async decideAndStart(body: AlertmanagerWebhookDto): Promise<IngestResult> {
    const notice = noticeOf(body);
    // The place is taken before the decision, so a started investigation always has one.
    const ticket = notice.status === 'firing' ? this.capacity.reserveBackground() : null;
    const runId = randomUUID();
    let decision: Awaited<ReturnType<AlertGroupRepository['decide']>>;
    try {
      decision = await this.groups.decide(
        notice,
        {
          dedupWindowMs: this.config.dedupWindowMs,
          maxRunsPerHour: this.config.maxRunsPerHour,
          canStart: ticket !== null,
        },
        runId,
      );
    } catch (error) {
      ticket?.cancel();
      this.logger.error(`alert notification not decided: ${describeDatabaseError(error)}`);
      throw new AlertStoreUnavailable();
    }
    // Before the run can end: a replica that stops first leaves its notifications to another one.
    await this.notifier.owe(runId, 'alert');
    const group = `group ${notice.groupKeyHash.slice(0, 12)} (session ${decision.sessionId})`;
    if (decision.outcome !== 'INVESTIGATION_STARTED') {
      ticket?.cancel();
      this.logger.log(`alert notification (${notice.status}) for ${group}: ${decision.outcome}`);
      return { outcome: decision.outcome, session_id: decision.sessionId, run_ids: [] };
    }
    const anchor = timeAnchorOf(body, new Date(), this.config.windowAfterStartMinutes);
    const run: StartedRun = {
      sessionId: decision.sessionId,
      runId,
      query: investigationQueryOf(body, anchor, MAX_QUERY_CHARS),
      continued: decision.continued,
      intent: 'DIAGNOSIS',
      timeAnchor: anchor,
      alert: {
        receiver: body.receiver,
        groupKey: body.groupKey,
        labels: body.commonLabels,
        status: body.status,
      },
    };
    try {
      await this.runs.startRun({
        sessionId: run.sessionId,
        runId,
        query: run.query,
        ownerKeyDigest: ALERT_SESSION_OWNER,
        origin: 'ALERT',
        alertLabels: body.commonLabels,
      });
    } catch (error) {
      ticket!.cancel();
      this.logger.error(`alert investigation ${runId} not started: ${describeDatabaseError(error)}`);
      // The group must not stay claimed by a run that does not exist: the sender's retry may start it.
      await this.groups
        .startFailed(runId)
        .catch((undo: unknown) =>
          this.logger.error(
            `alert group ${notice.groupKeyHash.slice(0, 12)} stays claimed by unstarted run ${runId} until its grace ends: ${describeDatabaseError(undo)}`,
          ),
        );
      throw new AlertStoreUnavailable();
    }
    this.logger.log(`alert investigation ${runId} started for ${group}`);
    const investigation = this.investigate(ticket!, run).finally(() =>
      this.investigations.delete(investigation),
    );
    this.investigations.add(investigation);
    return { outcome: 'INVESTIGATION_STARTED', session_id: decision.sessionId, run_ids: [runId] };
  }

  /** Waits for a slot of the alert share, runs, and frees the group for its next investigation. */
  private async investigate(ticket: BackgroundTicket, run: StartedRun): Promise<void> {
    this.queued.add(ticket);
    const release = await ticket.admitted;
    this.queued.delete(ticket);
    // A place given up at shutdown: the run still ends through the use case, CANCELLED by SERVICE_STOPPING.
    const signal = release
      ? new AbortController().signal
      : AbortSignal.abort(new RunCancelled('SERVICE_STOPPING'));
    try {
      // No client: nothing reads the events; the completion goes to RunCompletions' listeners.
      const stream = new ChatEventStream(() => undefined);
      stream.metadata(run.sessionId, run.runId);
      await this.useCase.runStarted(run, stream, signal);
    } catch (error) {
      // runStarted stores a terminal state for every error of the run; this is the store failing around it.
      this.logger.error(`alert investigation ${run.runId} ended abnormally: ${describeDatabaseError(error)}`);
    } finally {
      release?.();
      await this.groups
        .runEnded(run.runId)
        .catch((error: unknown) =>
          this.logger.error(
            `alert group of run ${run.runId} still names it active (ends with its run row): ${describeDatabaseError(error)}`,
          ),
        );
    }
  }

  /** Investigations under way finish (like chat streams); queued ones end CANCELLED at once. */
  async beforeApplicationShutdown(): Promise<void> {
    for (const ticket of this.queued) ticket.cancel();
    await Promise.allSettled([...this.investigations]);
  }
}
