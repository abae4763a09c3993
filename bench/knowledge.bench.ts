import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { KnowledgeRepository } from '@app/trace';
import { MIGRATIONS } from '../migrations';
import { TRACE_ENTITIES } from '../libs/trace/src/entities';
import { KnowledgeChunkEntity } from '../libs/trace/src/entities/knowledge-chunk.entity';
import { KnowledgeDocumentEntity } from '../libs/trace/src/entities/knowledge-document.entity';
import { DocumentsService } from '../libs/tools/src/documents/documents.service';
import { EmbeddedKnowledgeSearch } from '../libs/tools/src/knowledge/backends/embedded/embedded-knowledge-search';
import type { KnowledgeIndexReadiness } from '../libs/tools/src/knowledge/knowledge-search.port';
import { chunkDocument } from '../libs/tools/src/knowledge/markdown-chunker';
import type { ToolsConfig } from '../libs/tools/src/config/tools.config';
import { mean, percentile, reportBench } from './support/bench-results';
import { boundPort, cpuMs, stop } from './support/processes';

/**
 * The embedded knowledge base at BENCH_KNOWLEDGE_SIZES runbooks (default 1000, 10000, 50000). Runbooks
 * are generated with a varied vocabulary (their own services, error codes, hosts and one of many
 * failure modes in English or Chinese, over common SRE prose), so a query matches a few runbooks well
 * and many only on common words. Per size:
 * - a restart of the service as its own process (`--expose-gc` and the bench heap probe): time until
 *   the port answers (/health/live), time until /health reports the knowledge index ready, then the
 *   service's heap after a full GC, its array buffers (the index's typed arrays) and resident memory;
 * - in this process, the real EmbeddedKnowledgeSearch, KnowledgeRepository and DocumentsService over the
 *   local MariaDB: lookup p50/p95/p99 (the tool's 15 candidates, chunk texts read from MySQL), CPU per
 *   lookup, upload and delete through DocumentsService.
 * With BENCH_KNOWLEDGE_FULLTEXT=1, MariaDB's FULLTEXT search is measured on the largest base with the same
 * queries: index build time, lookup p50/p99, and how many of the BM25 top 15 it also returns.
 * Printed, never asserted.
 */
const SIZES = (process.env.BENCH_KNOWLEDGE_SIZES ?? '1000,10000,50000').split(',').map(Number);
const FULLTEXT = process.env.BENCH_KNOWLEDGE_FULLTEXT === '1';
/** How long a restart may take before the bench gives up on it (the goal is 30 s). */
const READY_DEADLINE_MS = 600_000;
const LOOKUPS = Number(process.env.BENCH_KNOWLEDGE_LOOKUPS ?? 400);
const UPLOADS = Number(process.env.BENCH_KNOWLEDGE_UPLOADS ?? 30);
const LIMIT = 15;
const MYSQL = {
  host: process.env.DB_HOST ?? '127.0.0.1',
  port: Number(process.env.DB_PORT ?? 3306),
  user: process.env.DB_USERNAME ?? 'root',
  password: process.env.DB_PASSWORD ?? '',
};

const COMMON = (
  'the a to of and is in for on check if when then service request error log logs latency timeout ' +
  'connection restart deploy config host node cluster alert dashboard metric metrics increase drop ' +
  'retry queue pool thread memory cpu disk network upstream downstream client server database cache ' +
  'rollback release version owner escalate on-call page verify confirm look see run command step'
).split(' ');

const FAILURES: { en: string; zh: string }[] = [
  { en: 'HikariPool connection pool exhausted waiting for connection', zh: '连接池耗尽 获取连接超时' },
  { en: 'payment channel timeout gateway 504 upstream slow', zh: '支付渠道超时 网关响应慢' },
  { en: 'redis OOM maxmemory eviction keys evicted', zh: '缓存内存不足 键被淘汰' },
  { en: 'TLS certificate expired handshake failure x509', zh: '证书过期 握手失败' },
  { en: 'disk full no space left on device inode usage', zh: '磁盘已满 空间不足' },
  { en: 'deadlock detected lock wait timeout transaction rollback', zh: '数据库死锁 锁等待超时' },
  { en: 'bad deploy config flag wrong feature toggle', zh: '发布配置错误 开关误配' },
  { en: 'kafka consumer lag partition rebalance', zh: '消息积压 分区重平衡' },
  { en: 'dns resolution failure nxdomain resolver', zh: '域名解析失败' },
  { en: 'jvm full gc pause heap old generation', zh: '垃圾回收停顿 堆内存' },
  { en: 'rate limit 429 throttled quota exceeded', zh: '限流 配额超限' },
  { en: 'replication lag replica behind primary binlog', zh: '主从延迟 复制落后' },
  { en: 'thread pool rejected execution queue full', zh: '线程池拒绝 队列已满' },
  { en: 'clock skew ntp drift token expired early', zh: '时钟漂移 令牌提前过期' },
  { en: 'etcd quorum lost leader election', zh: '选主失败 集群不可用' },
  { en: 'elasticsearch shard unassigned red cluster', zh: '分片未分配 集群变红' },
];

/** Deterministic: runbook i is the same at every size, so the small base is a prefix of the large. */
export function runbook(i: number): { title: string; text: string } {
  let state = (i + 1) * 2654435761;
  const next = () => {
    state = (state ^ (state << 13)) >>> 0;
    state = (state ^ (state >>> 17)) >>> 0;
    state = (state ^ (state << 5)) >>> 0;
    return state / 4294967296;
  };
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)];
  const failure = FAILURES[i % FAILURES.length];
  const service = `svc${i}-${pick(['order', 'payment', 'cart', 'user', 'search', 'ship'])}`;
  const code = `ERR_${10000 + i}`;
  const host = `host-${i}-${Math.floor(next() * 90)}`;
  const chinese = i % 3 === 0;
  // Runbooks of one failure mode describe it in their own words: a few of its terms each, not all.
  const en = failure.en.split(' ');
  const some = () => en.filter(() => next() < 0.45).join(' ');
  const prose = (words: number) =>
    Array.from({ length: words }, () => COMMON[Math.floor(COMMON.length * next() ** 2)]).join(' ');
  const section = (name: string, n: number) =>
    `## ${name}\n\n${prose(30)} ${n < 2 ? `${service} ${some()}` : ''} ${prose(40)} ${n === 1 ? code : ''} ${host}\n\n` +
    `${chinese && n === 0 ? `${failure.zh}，${service} 出现异常，请检查 ${code}。` : ''}${prose(50)}\n`;
  return {
    title: `${service} ${en.slice(0, 3).join(' ')} runbook`,
    text: ['Symptoms', 'Diagnosis', 'Mitigation', 'Follow-up'].map(section).join('\n'),
  };
}

/** What an on-call engineer asks about one of the first 100 runbooks: present at every size. */
export function queries(): string[] {
  return Array.from({ length: 50 }, (_, n) => {
    const i = (n * 37) % 100;
    const failure = FAILURES[i % FAILURES.length];
    const title = runbook(i).title.split(' ')[0];
    return n % 4 === 0
      ? `${title} ${failure.zh}`
      : n % 4 === 1
        ? `${failure.en.split(' ').slice(0, 4).join(' ')} ERR_${10000 + i}`
        : n % 4 === 2
          ? `${title} ${failure.en}`
          : `why does ${title} ${failure.en.split(' ').slice(-3).join(' ')} after deploy`;
  });
}

async function seed(dataSource: DataSource, from: number, to: number): Promise<void> {
  const batch = 200;
  for (let start = from; start < to; start += batch) {
    const documents: Partial<KnowledgeDocumentEntity>[] = [];
    const chunks: Partial<KnowledgeChunkEntity>[] = [];
    for (let i = start; i < Math.min(to, start + batch); i += 1) {
      const { title, text } = runbook(i);
      const documentId = `bench-${String(i).padStart(6, '0')}`;
      const pieces = chunkDocument(title, text);
      documents.push({
        documentId,
        title,
        category: 'runbook',
        faultSource: null,
        fileName: `${documentId}.md`,
        storedPath: `/nonexistent/${documentId}.md`,
        contentType: 'text/markdown',
        sizeBytes: Buffer.byteLength(text),
        status: 'INDEXED',
        chunkCount: pieces.length,
      });
      for (const piece of pieces) {
        chunks.push({
          chunkId: `${documentId}#${piece.index}`,
          documentId,
          chunkIndex: piece.index,
          breadcrumb: piece.breadcrumb,
          content: piece.content,
        });
      }
    }
    await dataSource.manager.insert(KnowledgeDocumentEntity, documents);
    await dataSource.manager.insert(KnowledgeChunkEntity, chunks);
  }
}

async function measure(
  dataSource: DataSource,
  knowledge: KnowledgeRepository,
  documentsDir: string,
  size: number,
): Promise<Record<string, number>> {
  const search = new EmbeddedKnowledgeSearch(knowledge);
  const buildStarted = performance.now();
  search.onApplicationBootstrap();
  await search.loaded();
  const buildMs = performance.now() - buildStarted;
  if (search.readiness().state !== 'ready') throw new Error('the knowledge index did not load');
  const list = queries();
  for (const query of list) await search.search(query, LIMIT);
  const latencies: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (let n = 0; n < LOOKUPS; n += 1) {
    const started = performance.now();
    await search.search(list[n % list.length], LIMIT);
    latencies.push(performance.now() - started);
  }
  const cpu = process.cpuUsage(cpuBefore);
  const config = { documents: { directory: documentsDir, maxBytes: 1 << 20 } } as unknown as ToolsConfig;
  const documents = new DocumentsService(knowledge, search, config);
  lastSearch = search;
  const uploads: number[] = [];
  const deletes: number[] = [];
  const ids: string[] = [];
  for (let n = 0; n < UPLOADS; n += 1) {
    const { title, text } = runbook(900_000 + size + n);
    const buffer = Buffer.from(text);
    const started = performance.now();
    const document = await documents.ingest(
      { originalname: `${title}.md`, buffer, size: buffer.length },
      { title },
    );
    uploads.push(performance.now() - started);
    ids.push(document.documentId);
  }
  for (const id of ids) {
    const started = performance.now();
    await documents.delete(id);
    deletes.push(performance.now() - started);
  }
  return {
    [`n${size}_chunks`]: await dataSource.getRepository(KnowledgeChunkEntity).count(),
    [`n${size}_chunk_text_mb`]:
      Number(
        (
          (await dataSource.query('SELECT SUM(LENGTH(content)) AS bytes FROM knowledge_chunk')) as {
            bytes: string;
          }[]
        )[0].bytes,
      ) /
      2 ** 20,
    [`n${size}_index_build_ms`]: buildMs,
    [`n${size}_lookup_p50_ms`]: percentile(latencies, 50),
    [`n${size}_lookup_p95_ms`]: percentile(latencies, 95),
    [`n${size}_lookup_p99_ms`]: percentile(latencies, 99),
    [`n${size}_lookup_cpu_ms`]: (cpu.user + cpu.system) / 1000 / LOOKUPS,
    [`n${size}_upload_p50_ms`]: percentile(uploads, 50),
    [`n${size}_upload_mean_ms`]: mean(uploads),
    [`n${size}_delete_p50_ms`]: percentile(deletes, 50),
  };
}

/** The index of the largest size, kept for the FULLTEXT comparison. */
let lastSearch: EmbeddedKnowledgeSearch | null = null;

interface ServiceHeap {
  heapUsed: number;
  arrayBuffers: number;
  rss: number;
}

function heapOf(service: ChildProcess): Promise<ServiceHeap> {
  return new Promise((resolveHeap) => {
    service.once('message', (message) => resolveHeap((message as { heap: ServiceHeap }).heap));
    service.send('heap');
  });
}

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

/** Restarts the service on the bench database and times it from the outside. */
async function restart(database: string, size: number): Promise<Record<string, number | string>> {
  const started = performance.now();
  const service = spawn(
    process.execPath,
    ['--expose-gc', '-r', resolve(__dirname, 'support/heap-probe.js'), 'dist/apps/server/src/main.js'],
    {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DB_NAME: database },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    },
  );
  try {
    const baseUrl = `http://127.0.0.1:${await boundPort(service, 'the service', READY_DEADLINE_MS)}`;
    let portOpenMs: number | null = null;
    let readiness: KnowledgeIndexReadiness | null = null;
    const loadingSeen = { count: 0 };
    while (performance.now() - started < READY_DEADLINE_MS) {
      if (service.exitCode !== null) throw new Error(`the service exited with ${service.exitCode}`);
      try {
        if (portOpenMs === null && (await fetch(`${baseUrl}/health/live`)).ok) {
          portOpenMs = performance.now() - started;
        }
        if (portOpenMs !== null) {
          const body = (await (await fetch(`${baseUrl}/health`)).json()) as {
            info?: { knowledge?: KnowledgeIndexReadiness };
            error?: { knowledge?: KnowledgeIndexReadiness };
          };
          const knowledge = body.info?.knowledge ?? body.error?.knowledge ?? null;
          if (knowledge?.state === 'loading') loadingSeen.count += 1;
          if (knowledge?.state === 'ready' || knowledge?.state === 'failed') {
            readiness = knowledge;
            break;
          }
        }
      } catch {
        // not listening yet
      }
      await new Promise((resolveWait) => setTimeout(resolveWait, 100));
    }
    const readyMs = performance.now() - started;
    // CPU the service used to start and load: what the wall time costs without the machine's other load.
    const readyCpuMs = cpuMs(service.pid!);
    if (readiness?.state !== 'ready')
      throw new Error(`the index was not ready after ${Math.round(readyMs)} ms`);
    const heap = await heapOf(service);
    return {
      [`n${size}_restart_port_open_ms`]: portOpenMs ?? -1,
      [`n${size}_restart_ready_ms`]: readyMs,
      [`n${size}_restart_index_load_ms`]: readiness.load_ms,
      [`n${size}_restart_cpu_ms`]: readyCpuMs,
      [`n${size}_restart_loading_polls`]: loadingSeen.count,
      [`n${size}_service_heap_after_gc_mb`]: heap.heapUsed / 2 ** 20,
      [`n${size}_service_array_buffers_mb`]: heap.arrayBuffers / 2 ** 20,
      [`n${size}_service_rss_mb`]: heap.rss / 2 ** 20,
      [`n${size}_service_rss_peak_mb`]: peakRssMb(service.pid!),
      [`n${size}_index_terms`]: readiness.terms,
    };
  } finally {
    await stop(service);
  }
}

/** MariaDB FULLTEXT over the same chunks and queries, against the BM25 index's top 15. */
async function fulltext(dataSource: DataSource, search: EmbeddedKnowledgeSearch, size: number) {
  const started = performance.now();
  await dataSource.query('ALTER TABLE knowledge_chunk ADD FULLTEXT INDEX ft_bench (breadcrumb, content)');
  const buildMs = performance.now() - started;
  const latencies: number[] = [];
  let overlap = 0;
  let expected = 0;
  let empty = 0;
  // Each query once: a FULLTEXT lookup over common words takes seconds on a loaded machine.
  for (const query of queries()) {
    const begun = performance.now();
    const rows = (await dataSource.query(
      `SELECT chunk_id, MATCH (breadcrumb, content) AGAINST (? IN NATURAL LANGUAGE MODE) AS score
         FROM knowledge_chunk WHERE MATCH (breadcrumb, content) AGAINST (? IN NATURAL LANGUAGE MODE)
        ORDER BY score DESC LIMIT ${LIMIT}`,
      [query, query],
    )) as { chunk_id: string }[];
    latencies.push(performance.now() - begun);
    if (rows.length === 0) empty += 1;
    const bm25 = (await search.search(query, LIMIT)).map((hit) => hit.chunk_id);
    const found = new Set(rows.map((row) => row.chunk_id));
    expected += bm25.length;
    overlap += bm25.filter((id) => found.has(id)).length;
  }
  await dataSource.query('ALTER TABLE knowledge_chunk DROP INDEX ft_bench');
  return {
    [`fulltext_n${size}_index_build_ms`]: buildMs,
    [`fulltext_n${size}_lookup_p50_ms`]: percentile(latencies, 50),
    [`fulltext_n${size}_lookup_p99_ms`]: percentile(latencies, 99),
    [`fulltext_n${size}_top15_overlap_with_bm25`]: overlap / expected,
    [`fulltext_n${size}_queries_without_result`]: empty,
  };
}

/** One row per size: the figures issue 41 asks for, side by side. */
function printTable(sizes: number[], figures: Record<string, number | string>): void {
  const columns: [string, string][] = [
    ['chunks', 'chunks'],
    ['service_heap_after_gc_mb', 'heap after GC MB'],
    ['service_array_buffers_mb', 'array buffers MB'],
    ['service_rss_mb', 'RSS MB'],
    ['service_rss_peak_mb', 'RSS peak MB'],
    ['restart_port_open_ms', 'port open ms'],
    ['restart_ready_ms', 'ready ms'],
    ['restart_cpu_ms', 'start CPU ms'],
    ['lookup_p50_ms', 'lookup p50 ms'],
    ['lookup_p99_ms', 'lookup p99 ms'],
  ];
  const cell = (value: number | string | undefined) =>
    typeof value === 'number' ? (Number.isInteger(value) ? String(value) : value.toFixed(1)) : '-';
  const rows = [
    ['runbooks', ...columns.map(([, title]) => title)],
    ...sizes.map((size) => [String(size), ...columns.map(([key]) => cell(figures[`n${size}_${key}`]))]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  process.stdout.write('\n');
  for (const row of rows) {
    process.stdout.write(`  ${row.map((value, i) => value.padStart(widths[i])).join('  ')}\n`);
  }
}

async function main(): Promise<void> {
  // The in-process index logs its loads; the table below says the same.
  Logger.overrideLogger(['error', 'warn']);
  const database = `bench_knowledge_${process.pid}`;
  const admin = await createConnection(MYSQL);
  await admin.query(`CREATE DATABASE ${database} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  const documentsDir = mkdtempSync(join(tmpdir(), 'bench-knowledge-'));
  const dataSource = new DataSource({
    type: 'mariadb',
    ...MYSQL,
    username: MYSQL.user,
    database,
    entities: TRACE_ENTITIES,
    migrations: MIGRATIONS,
    timezone: 'Z',
    charset: 'utf8mb4_unicode_ci',
    logging: false,
  });
  try {
    await dataSource.initialize();
    await dataSource.runMigrations();
    const knowledge = new KnowledgeRepository(
      dataSource.getRepository(KnowledgeDocumentEntity),
      dataSource.getRepository(KnowledgeChunkEntity),
    );
    const figures: Record<string, number | string> = {};
    let seeded = 0;
    for (const size of [...SIZES].sort((a, b) => a - b)) {
      await seed(dataSource, seeded, size);
      seeded = size;
      Object.assign(figures, await restart(database, size));
      Object.assign(figures, await measure(dataSource, knowledge, documentsDir, size));
      // Printed as each size ends: a later size that fails leaves the earlier figures.
      printTable(
        SIZES.filter((value) => value <= size),
        figures,
      );
    }
    if (FULLTEXT && lastSearch) {
      try {
        Object.assign(figures, await fulltext(dataSource, lastSearch, seeded));
      } catch (error) {
        process.stderr.write(`knowledge bench: the FULLTEXT comparison failed: ${String(error)}\n`);
        figures.fulltext_error = String(error).slice(0, 200);
      }
    }
    const base = Math.min(...SIZES);
    for (const size of SIZES.filter((value) => value !== base)) {
      for (const figure of [
        'lookup_p50_ms',
        'lookup_p99_ms',
        'lookup_cpu_ms',
        'upload_p50_ms',
        'service_heap_after_gc_mb',
        'restart_ready_ms',
      ]) {
        figures[`ratio_${figure.replace(/_ms$/, '')}_${size}_vs_${base}`] =
          Number(figures[`n${size}_${figure}`]) / Number(figures[`n${base}_${figure}`]);
      }
    }
    reportBench('knowledge', figures);
    printTable(SIZES, figures);
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
    await admin.query(`DROP DATABASE IF EXISTS ${database}`);
    await admin.end();
    rmSync(documentsDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`knowledge bench failed: ${String(error)}\n`);
    process.exit(1);
  });
}
