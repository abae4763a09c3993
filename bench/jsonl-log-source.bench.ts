import { statSync } from 'node:fs';
import { FileLogSource } from '../libs/tools/src/logs/file-log-source';
import { LogScanPool } from '../libs/tools/src/logs/log-scan-pool';
import { reportBench } from './support/bench-results';
import {
  BENCH_LOG_END as END,
  BENCH_LOG_QUERY as QUERY,
  benchLogFile,
  median,
  referenceScanner,
} from './support/bench-logs';

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
  const ref = referenceScanner();
  const figures: Record<string, number | string> = {
    measured: `in process, worker pool of ${WORKERS}`,
    reference: ref.name,
  };
  try {
    for (const sizeMb of SIZES) {
      const { directory: dir, file } = await benchLogFile(sizeMb);
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
