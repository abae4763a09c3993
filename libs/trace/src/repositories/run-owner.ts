import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Injectable } from '@nestjs/common';

/**
 * This replica as the owner of the runs it starts: unique per process start, readable in the table,
 * and the set of runs it is executing right now. Only those get their lease renewed, so a run this
 * replica stopped executing without storing its terminal state (the database failed at that moment)
 * runs out of lease and is closed as ABANDONED like a dead replica's run, instead of being renewed for
 * as long as the process lives.
 */
const MAX_UNCONFIRMED = 10_000;

/** An ending a client heard (or, for CANCELLED, the one it caused) whose write was not confirmed. */
export interface AnnouncedEnding {
  status: 'FAILED' | 'CANCELLED';
  errorCode: string;
}

@Injectable()
export class RunOwner {
  readonly id = `${hostname().slice(0, 40)}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly executing = new Set<string>();
  /** Runs whose client was told an ending that MySQL may not hold yet: run id → that ending. */
  private readonly unconfirmed = new Map<string, AnnouncedEnding>();

  adopt(runId: string): void {
    this.executing.add(runId);
  }

  release(runId: string): void {
    this.executing.delete(runId);
  }

  executingRuns(): string[] {
    return [...this.executing];
  }

  /**
   * The client was told the run ended so, but its terminal write was not confirmed: the
   * next heartbeat stores that ending (RetentionService.reconcileUnconfirmed). Bounded: past
   * MAX_UNCONFIRMED the oldest is given up, and the lease reaper closes it as ABANDONED.
   */
  endingNotStored(runId: string, ending: AnnouncedEnding): void {
    this.unconfirmed.set(runId, ending);
    if (this.unconfirmed.size > MAX_UNCONFIRMED) {
      this.unconfirmed.delete(this.unconfirmed.keys().next().value as string);
    }
  }

  unconfirmedEndings(): [runId: string, ending: AnnouncedEnding][] {
    return [...this.unconfirmed];
  }

  endingStored(runId: string): void {
    this.unconfirmed.delete(runId);
  }
}
