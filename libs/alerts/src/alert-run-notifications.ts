import { Injectable, OnModuleInit } from '@nestjs/common';
import { RunCompleted, RunCompletionListener, RunCompletions } from '@app/chat';
import { RunNotifier } from '@app/notify';

/**
 * Alert-started runs go to every configured notification target once their terminal state is stored
 * (a chat run only to the targets its request named, which the chat use case hands the notifier itself).
 * The notifier reads the text from the stored run row, so what is sent is the released report or the
 * fixed fallback text, never a draft.
 */
@Injectable()
export class AlertRunNotifications implements RunCompletionListener, OnModuleInit {
  constructor(
    private readonly completions: RunCompletions,
    private readonly notifier: RunNotifier,
  ) {}

  onModuleInit(): void {
    this.completions.register(this);
  }

  runCompleted(run: RunCompleted): void {
    if (run.origin !== 'ALERT' || !run.stored) return;
    this.notifier.notifyRunFinished({
      runId: run.runId,
      sessionId: run.sessionId,
      trigger: 'alert',
      targets: null,
      alertLabels: run.alert?.labels ?? null,
    });
  }
}
