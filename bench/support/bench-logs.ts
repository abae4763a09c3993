import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, renameSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The log benches' data: one APPLICATION topic of `sizeMb` time-ordered JSON lines spanning the 24 hours
 * before BENCH_LOG_END, generated once into $TMPDIR/superbiz-bench-logs/v2-<size>mb (reused while present),
 * and the reference scanner they are compared with.
 */
export const BENCH_LOG_END = Date.parse('2026-11-20T10:30:00Z');
export const BENCH_LOG_SPAN_MS = 24 * 3600_000;
/** The incident query: about one line in a thousand holds it. */
export const BENCH_LOG_QUERY = 'HikariPool connection timed out';
const ROOT = join(tmpdir(), 'superbiz-bench-logs');
const SERVICES = ['order-service', 'payment-service', 'inventory-service', 'gateway', 'cart-service'];

/** The directory and file of one size, generated when missing. */
export async function benchLogFile(sizeMb: number): Promise<{ directory: string; file: string }> {
  const directory = join(ROOT, `v2-${sizeMb}mb`);
  const file = join(directory, 'application-export.jsonl');
  mkdirSync(directory, { recursive: true });
  if (!existsSync(file)) await generate(file, sizeMb);
  return { directory, file };
}

/** A day of time-ordered JSON lines: about one line in a thousand is the incident. */
async function generate(file: string, sizeMb: number): Promise<void> {
  const partial = `${file}.partial`;
  // Times grow with the bytes written, so the file is time-ordered like a real log.
  const out = createWriteStream(partial);
  const target = sizeMb * 1024 * 1024;
  let written = 0;
  for (let n = 0; written < target;) {
    const lines: string[] = [];
    for (let i = 0; i < 5000; i += 1, n += 1) {
      const incident = n % 997 === 0;
      const at =
        BENCH_LOG_END -
        BENCH_LOG_SPAN_MS +
        Math.floor((Math.min(written, target) / target) * BENCH_LOG_SPAN_MS);
      const text = JSON.stringify({
        timestamp: new Date(at).toISOString(),
        level: incident ? 'ERROR' : n % 13 === 0 ? 'WARN' : 'INFO',
        service: SERVICES[n % SERVICES.length],
        message: incident
          ? `HikariPool-1 - Connection is not available, request timed out after 30000ms (requestId=${n.toString(16)})`
          : `Handled request ${n} for order order-${n % 100000} in ${n % 300}ms user=u-${n % 5000}`,
        trace_id: `t-${n.toString(36)}`,
        host: `node-${n % 12}`,
      });
      lines.push(text);
      written += text.length + 1;
    }
    const chunk = `${lines.join('\n')}\n`;
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  renameSync(partial, file);
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Seconds one scan takes. Its output is read through a pipe: GNU grep writing to /dev/null stops at the
 * first match, as if given -q, and would time nothing. Exit 0 (matches) or 1 (none) only; any other
 * status is an error naming the command, never a figure.
 */
async function timed(command: string, args: string[]): Promise<number> {
  const started = process.hrtime.bigint();
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  child.stdout.resume();
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0 && code !== 1)
    throw new Error(`the reference scan ${command} ${args.join(' ')} exited ${code}`);
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** The reference: rg when installed, else grep -F, counting lines with the query's rarest word (seconds). */
export function referenceScanner(): { name: string; run: (file: string) => Promise<number> } {
  const name = spawnSync('rg', ['--version'], { stdio: 'ignore' }).status === 0 ? 'rg' : 'grep';
  return { name, run: (file) => timed(name, ['-c', '-i', '-F', 'hikaripool', file]) };
}
