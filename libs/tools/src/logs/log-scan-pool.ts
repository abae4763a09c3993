import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { scanFiles, ScanOutcome, ScanTask } from './log-scan';

/** Runs log scans: in worker threads (the service) or on the calling thread (CLIs, unit specs). */
export interface LogScanner {
  scan(task: ScanTask, signal: AbortSignal): Promise<ScanOutcome>;
  close(): Promise<void>;
}

/** Scans on the calling thread; cancellation is checked between reads. */
export class InlineLogScanner implements LogScanner {
  async scan(task: ScanTask, signal: AbortSignal): Promise<ScanOutcome> {
    const outcome = await scanFiles(task, () => signal.aborted);
    signal.throwIfAborted();
    return outcome;
  }
  async close(): Promise<void> {}
}

interface Job {
  id: number;
  task: ScanTask;
  cancel: SharedArrayBuffer;
  signal: AbortSignal;
  resolve: (outcome: ScanOutcome) => void;
  reject: (error: unknown) => void;
  onAbort: () => void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
}

/**
 * The worker entry: the compiled `.js` beside this module; when running from TypeScript sources (specs),
 * the `.ts` worker loaded through a transpile-only hook, so specs exercise the same threads.
 */
function workerOf(): Worker {
  const compiled = join(__dirname, 'log-scan.worker.js');
  if (existsSync(compiled)) return new Worker(compiled);
  const source = join(__dirname, 'log-scan.worker.ts');
  const typescript = require.resolve('typescript');
  const bootstrap = `
    const ts = require(${JSON.stringify(typescript)});
    const fs = require('node:fs');
    require.extensions['.ts'] = (module, file) => module._compile(ts.transpileModule(fs.readFileSync(file, 'utf8'), {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    }).outputText, file);
    require(${JSON.stringify(source)});`;
  return new Worker(bootstrap, { eval: true });
}

/**
 * A bounded pool of worker threads for log scans: a scan never blocks the event loop or another scan's
 * deadline, at most `size` scans run at once and the rest wait their turn. An aborted scan is rejected at
 * once with the signal's reason; its worker stops at its next read (a shared flag) and takes the next job.
 */
export class LogScanPool implements LogScanner {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new Error('the log scan pool needs at least one worker');
  }

  scan(task: ScanTask, signal: AbortSignal): Promise<ScanOutcome> {
    if (this.closed) return Promise.reject(new Error('the log scan pool is closed'));
    signal.throwIfAborted();
    return new Promise<ScanOutcome>((resolve, reject) => {
      const job: Job = {
        id: this.nextId++,
        task,
        cancel: new SharedArrayBuffer(4),
        signal,
        resolve,
        reject,
        onAbort: () => this.abort(job),
      };
      signal.addEventListener('abort', job.onAbort, { once: true });
      this.queue.push(job);
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) this.settle(job, new Error('the log scan pool is closed'));
    await Promise.all(this.slots.splice(0).map((slot) => slot.worker.terminate()));
  }

  private abort(job: Job): void {
    Atomics.store(new Int32Array(job.cancel), 0, 1);
    const queued = this.queue.indexOf(job);
    if (queued >= 0) this.queue.splice(queued, 1);
    this.settle(job, job.signal.reason);
  }

  private settle(job: Job, error: unknown, outcome?: ScanOutcome): void {
    job.signal.removeEventListener('abort', job.onAbort);
    if (error === undefined) job.resolve(outcome!);
    else job.reject(error);
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((candidate) => candidate.job === null);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      const job = this.queue.shift()!;
      slot.job = job;
      // A busy worker keeps the process alive until its answer; an idle one does not.
      slot.worker.ref();
      slot.worker.postMessage({ id: job.id, task: job.task, cancel: job.cancel });
    }
  }

  private spawn(): Slot {
    const slot: Slot = { worker: workerOf(), job: null };
    slot.worker.unref();
    slot.worker.on('message', (reply: { id: number; outcome?: ScanOutcome; error?: string }) => {
      const job = slot.job;
      slot.job = null;
      slot.worker.unref();
      if (job && job.id === reply.id && !job.signal.aborted) {
        if (reply.outcome) this.settle(job, undefined, reply.outcome);
        else this.settle(job, new Error(`log scan failed: ${reply.error ?? 'unknown'}`));
      }
      this.dispatch();
    });
    // A worker that dies fails only its job; the next job gets a fresh worker.
    const lost = (reason: string) => {
      const at = this.slots.indexOf(slot);
      if (at < 0) return;
      this.slots.splice(at, 1);
      const job = slot.job;
      slot.job = null;
      if (job && !job.signal.aborted) this.settle(job, new Error(`log scan worker failed: ${reason}`));
      if (!this.closed) this.dispatch();
    };
    slot.worker.on('error', (error) => lost(error.message));
    slot.worker.on('exit', (code) => lost(`exited with code ${code}`));
    this.slots.push(slot);
    return slot;
  }
}

/** The default pool size: two workers, or one on a one-core machine. */
export function defaultScanWorkers(cores: number): number {
  return Math.max(1, Math.min(2, cores));
}
