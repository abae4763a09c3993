import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { projectLogs, queryLogsConfig } from '@app/tools';
import { FileLogSource } from '../libs/tools/src/logs/file-log-source';
import { reportBench } from './support/bench-results';

/**
 * The FILE log source over a large JSON-lines export (BENCH_JSONL_MB, default 1024) generated in a temp
 * dir: scan throughput in MB/s and the process's peak RSS, for a selective query over the whole file and
 * a broad one in a 30-minute window. Printed, never asserted.
 */
const SIZE_MB = Number(process.env.BENCH_JSONL_MB ?? 1024);
const END = Date.parse('2026-11-20T10:30:00Z');
const SPAN_MS = 24 * 3600_000;
const SERVICES = ['order-service', 'payment-service', 'inventory-service', 'gateway', 'cart-service'];

async function generate(file: string): Promise<number> {
  const out = createWriteStream(file);
  const target = SIZE_MB * 1024 * 1024;
  let written = 0;
  let n = 0;
  while (written < target) {
    const lines: string[] = [];
    for (let i = 0; i < 5000; i += 1, n += 1) {
      const incident = n % 997 === 0;
      lines.push(
        JSON.stringify({
          timestamp: new Date(END - SPAN_MS + Math.floor((n * 7919) % SPAN_MS)).toISOString(),
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
  return n;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-jsonl-'));
  try {
    const file = join(dir, 'application-export.jsonl');
    const lines = await generate(file);
    const bytes = statSync(file).size;
    const source = new FileLogSource({ directory: dir, rules: [], timeZone: 'UTC', maxMatches: 200_000 });
    const limits = queryLogsConfig();
    const figures: Record<string, number | string> = { file_mb: bytes / 1024 / 1024, lines };
    for (const [label, query, minutes] of [
      ['selective_24h', 'HikariPool connection timed out', 24 * 60],
      ['broad_30min', 'handled request order', 30],
    ] as const) {
      const started = process.hrtime.bigint();
      const raw = await source.search(
        { topic: 'APPLICATION', query, startTime: new Date(END - minutes * 60_000), endTime: new Date(END) },
        new AbortController().signal,
      );
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const projection = projectLogs(raw, limits);
      figures[`${label}_matches`] = raw.events.length;
      figures[`${label}_seconds`] = seconds;
      figures[`${label}_mb_per_s`] = bytes / 1024 / 1024 / seconds;
      figures[`${label}_agent_result_bytes`] = Buffer.byteLength(JSON.stringify(projection.result));
    }
    figures.peak_rss_mb = process.resourceUsage().maxRSS / 1024;
    reportBench('jsonl_log_source_scan', figures);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
