import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { FileLogSource } from '../libs/tools/src/logs/file-log-source';
import { LogScanPool } from '../libs/tools/src/logs/log-scan-pool';
import { reportBench } from './support/bench-results';

/**
 * The FILE log source over one topic of BENCH_LOG_SIZES_MB (default 10,100,1024) of time-ordered JSON
 * lines spanning 24 hours, generated once into $TMPDIR/superbiz-bench-logs (reused while present). In
 * this process with the worker pool (LOGS_SCAN_WORKERS, default 2): the incident query with 60-minute and
 * 24-hour lookbacks, 1 and 4 concurrent scans (each scan's own latency), and `rg` (else `grep -F`) on the
 * same file in the same run as the reference. Index building is in the first run; the median of
 * BENCH_LOG_RUNS (default 3) is printed, never asserted.
 */
const SIZES = (process.env.BENCH_LOG_SIZES_MB ?? '10,100,1024').split(',').map(Number);
const RUNS = Number(process.env.BENCH_LOG_RUNS ?? 3);
const WORKERS = Number(process.env.LOGS_SCAN_WORKERS ?? 2);
const ROOT = join(tmpdir(), 'superbiz-bench-logs');
const END = Date.parse('2026-11-20T10:30:00Z');
const SPAN_MS = 24 * 3600_000;
const SERVICES = ['order-service', 'payment-service', 'inventory-service', 'gateway', 'cart-service'];
const QUERY = 'HikariPool connection timed out';

/** A day of time-ordered JSON lines: about one line in a thousand is the incident. */
async function generate(file: string, sizeMb: number): Promise<void> {
  const partial = `${file}.partial`;
  const out = createWriteStream(partial);
  const target = sizeMb * 1024 * 1024;
  let written = 0;
  for (let n = 0; written < target;) {
    const lines: string[] = [];
    for (let i = 0; i < 5000; i += 1, n += 1) {
      const incident = n % 997 === 0;
      const at = END - SPAN_MS + Math.floor((written / target) * SPAN_MS);
      lines.push(
        JSON.stringify({
          timestamp: new Date(at).toISOString(),
          level: incident ? 'ERROR' : n % 13 === 0 ? 'WARN' : 'INFO',
          service: SERVICES[n % SERVICES.length],
          message: incident
            ? `HikariPool-1 - Connection is not available, request timed out after 30000ms (requestId=${n.toString(16)})`
            : `Handled request ${n} for order order-${n % 100000} in ${n % 300}ms user=u-${n % 5000}`,
          trace_id: `t-${n.toString(36)}`,
          host: `node-${n % 12}`,
        }),
      );
    }
    const chunk = `${lines.join('\n')}\n`;
    written += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  renameSync(partial, file);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function timed(command: string, args: string[]): number {
  const started = process.hrtime.bigint();
  spawnSync(command, args, { stdio: 'ignore' });
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** The reference: rg when installed, else grep -F, counting lines with the query's rarest word. */
function reference(): { name: string; run: (file: string) => number } {
  const rg = spawnSync('rg', ['--version'], { stdio: 'ignore' }).status === 0;
  return rg
    ? { name: 'rg', run: (file) => timed('rg', ['-c', '-i', '-F', 'hikaripool', file]) }
    : { name: 'grep', run: (file) => timed('grep', ['-c', '-i', '-F', 'hikaripool', file]) };
}

async function main(): Promise<void> {
  const pool = new LogScanPool(WORKERS);
  const ref = reference();
  const figures: Record<string, number | string> = {
    measured: `in process, worker pool of ${WORKERS}`,
    reference: ref.name,
  };
  try {
    for (const sizeMb of SIZES) {
      const dir = join(ROOT, `${sizeMb}mb`);
      const file = join(dir, 'application-export.jsonl');
      mkdirSync(dir, { recursive: true });
      if (!existsSync(file)) await generate(file, sizeMb);
      const bytes = statSync(file).size;
      const source = new FileLogSource(
        {
          directory: dir,
          rules: [],
          timeZone: 'UTC',
          maxMatches: 20_000,
          maxRawBytes: 960 * 1024,
          maxLineBytes: 1024 * 1024,
        },
        pool,
      );
      const label = `${sizeMb}mb`;
      figures[`${label}_file_mb`] = bytes / 1024 / 1024;
      figures[`${label}_${ref.name}_s`] = median(Array.from({ length: RUNS }, () => ref.run(file)));
      for (const minutes of [60, 24 * 60]) {
        for (const concurrent of [1, 4]) {
          const latencies: number[] = [];
          let matches = 0;
          for (let run = 0; run < RUNS; run += 1) {
            const each = await Promise.all(
              Array.from({ length: concurrent }, async () => {
                const started = process.hrtime.bigint();
                const raw = await source.search(
                  {
                    topic: 'APPLICATION',
                    query: QUERY,
                    startTime: new Date(END - minutes * 60_000),
                    endTime: new Date(END),
                  },
                  new AbortController().signal,
                );
                matches = raw.events.length;
                return Number(process.hrtime.bigint() - started) / 1e9;
              }),
            );
            latencies.push(Math.max(...each));
          }
          const key = `${label}_${minutes}min_x${concurrent}`;
          figures[`${key}_s`] = median(latencies);
          figures[`${key}_matches`] = matches;
        }
      }
    }
    figures.peak_rss_mb = process.resourceUsage().maxRSS / 1024;
    reportBench('jsonl_log_source_scan', figures);
  } finally {
    await pool.close();
  }
}

void main();
