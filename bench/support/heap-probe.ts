/**
 * Preloaded into the service by the soak bench only (`node --expose-gc -r heap-probe.js main.js`, with
 * an IPC channel): on each `heap` message it forces a full GC and answers with process.memoryUsage().
 * The service itself has no heap endpoint and never runs with --expose-gc.
 */
const collect = (globalThis as { gc?: () => void }).gc;
if (collect && process.send) {
  process.on('message', (message: unknown) => {
    if (message !== 'heap') return;
    collect();
    process.send!({ heap: process.memoryUsage() });
  });
  // The probe must not keep the service alive: SIGTERM still ends it as it ends in production.
  (process.channel as { unref?: () => void } | undefined)?.unref?.();
}
