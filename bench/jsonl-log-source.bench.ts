import { spawn, spawnSync } from 'node:child_process';
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
 * same file in the same run as the reference, alone and four at once. Per figure the slowest of the
 * concurrent scans, median of BENCH_LOG_RUNS (default 3); the time index is built in the first run.
 * Printed, never asserted.
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
  // Times grow with the bytes written, so the file is time-ordered like a real log.
  const out = createWriteStream(partial);
  const target = sizeMb * 1024 * 1024;
  let written = 0;
  for (let n = 0; written < target;) {
    const lines: string[] = [];
    for (let i = 0; i < 5000; i += 1, n += 1) {
      const incident = n % 997 === 0;
      const at = END - SPAN_MS + Math.floor((Math.min(written, target) / target) * SPAN_MS);
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

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function timed(command: string, args: string[]): Promise<number> {
  const started = process.hrtime.bigint();
  await once(spawn(command, args, { stdio: 'ignore' }), 'close');
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** The reference: rg when installed, else grep -F, counting lines with the query's rarest word. */
function reference(): { name: string; run: (file: string) => Promise<number> } {
  const name = spawnSync('rg', ['--version'], { stdio: 'ignore' }).status === 0 ? 'rg' : 'grep';
  return { name, run: (file) => timed(name, ['-c', '-i', '-F', 'hikaripool', file]) };
}

/** The slowest of `concurrent` runs started together, median over RUNS. */
async function slowest(concurrent: number, run: () => Promise<number>): Promise<number> {
  const latencies: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    latencies.push(Math.max(...(await Promise.all(Array.from({ length: concurrent }, run)))));
  }
  return median(latencies);
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
      const dir = join(ROOT, `v2-${sizeMb}mb`);
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
      for (const concurrent of [1, 4]) {
        figures[`${label}_${ref.name}_x${concurrent}_s`] = await slowest(concurrent, () => ref.run(file));
      }
      for (const minutes of [60, 24 * 60]) {
        for (const concurrent of [1, 4]) {
          let matches = 0;
          let limit = 'none';
          const key = `${label}_${minutes}min_x${concurrent}`;
          figures[`${key}_s`] = await slowest(concurrent, async () => {
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
            limit = raw.match_limit?.by ?? 'none';
            return Number(process.hrtime.bigint() - started) / 1e9;
          });
          figures[`${key}_matches`] = matches;
          figures[`${key}_stopped_by`] = limit;
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
