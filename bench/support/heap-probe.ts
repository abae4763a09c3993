import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';

/**
 * Preloaded into the service by the benches only (`node --expose-gc -r heap-probe.js main.js`, with
 * an IPC channel): on each `heap` message it forces a full GC and answers with process.memoryUsage().
 * `{profile: 'start'}` starts the V8 CPU profiler, `{profile: 'stop', file}` writes what it sampled
 * since (a .cpuprofile, for Chrome DevTools or bench/support/profile-summary) and answers `{profiled}`.
 * The service itself has no heap endpoint and never runs with --expose-gc.
 */
const collect = (globalThis as { gc?: () => void }).gc;
if (collect && process.send) {
  let session: Session | null = null;
  process.on('message', (message: unknown) => {
    if (message === 'heap') {
      collect();
      process.send!({ heap: process.memoryUsage() });
      return;
    }
    const profile = message as { profile?: 'start' | 'stop'; file?: string };
    if (profile.profile === 'start') {
      session = new Session();
      session.connect();
      // 100 µs samples: a request costs about a millisecond, so each stage gets several.
      session.post('Profiler.enable', () =>
        session!.post('Profiler.setSamplingInterval', { interval: 100 }, () =>
          session!.post('Profiler.start', () => process.send!({ profiling: true })),
        ),
      );
    } else if (profile.profile === 'stop' && session && profile.file) {
      const file = profile.file;
      session.post('Profiler.stop', (error, result) => {
        if (!error) writeFileSync(file, JSON.stringify(result.profile));
        session!.disconnect();
        session = null;
        process.send!({ profiled: error ? String(error) : file });
      });
    }
  });
  // The probe must not keep the service alive: SIGTERM still ends it as it ends in production.
  (process.channel as { unref?: () => void } | undefined)?.unref?.();
}
