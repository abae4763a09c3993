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
@Injectable()
export class RunOwner {
  readonly id = `${hostname().slice(0, 40)}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly executing = new Set<string>();

  adopt(runId: string): void {
    this.executing.add(runId);
  }

  release(runId: string): void {
    this.executing.delete(runId);
  }

  executingRuns(): string[] {
    return [...this.executing];
  }
}
