import { parentPort } from 'node:worker_threads';
import { scanFiles, ScanTask } from './log-scan';

/** A log-scan pool worker: runs one ScanTask at a time; a shared flag set by the pool cancels it. */
interface ScanRequest {
  id: number;
  task: ScanTask;
  cancel: SharedArrayBuffer;
}

parentPort?.on('message', (request: ScanRequest) => {
  const cancel = new Int32Array(request.cancel);
  scanFiles(request.task, () => Atomics.load(cancel, 0) === 1).then(
    (outcome) => parentPort?.postMessage({ id: request.id, outcome }),
    (error: unknown) =>
      parentPort?.postMessage({
        id: request.id,
        error: error instanceof Error ? error.message : 'scan failed',
      }),
  );
});
