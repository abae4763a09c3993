import { LogRawResponse, LogSourcePort, LogTopic, projectLogs, queryLogsConfig } from '@app/tools';
import { MockLogSource } from '../libs/tools/src/logs/backends/mock/mock-log-source';
import { reportBench } from './support/bench-results';

/**
 * Context saving of query_logs over the demo (MOCK) dataset: bytes and approximate tokens of the raw
 * responses the Harness stores vs the agent_result the agent sees, with the patterns that were kept.
 */
const QUERIES: { topic: LogTopic; query: string; lookback: number }[] = [
  { topic: 'APPLICATION', query: 'order-service HikariPool connection timeout', lookback: 30 },
  { topic: 'APPLICATION', query: 'payment timed out ERR_TIMEOUT', lookback: 60 },
  { topic: 'ACCESS', query: 'pay 504 order-service', lookback: 30 },
  { topic: 'APPLICATION', query: 'order created', lookback: 1440 },
  { topic: 'DATABASE', query: 'slow query biz_order', lookback: 120 },
];

async function main(): Promise<void> {
  const limits = queryLogsConfig();
  const source: LogSourcePort = new MockLogSource();
  const end = new Date();
  let rawBytes = 0;
  let resultBytes = 0;
  const kept: string[] = [];
  for (const { topic, query, lookback } of QUERIES) {
    const raw: LogRawResponse = await source.search(
      { topic, query, startTime: new Date(end.getTime() - lookback * 60_000), endTime: end },
      new AbortController().signal,
    );
    const projection = projectLogs(raw, limits);
    const resultSize = Buffer.byteLength(
      JSON.stringify({
        evidence_status: projection.evidenceStatus,
        ...projection.result,
        truncated: projection.truncated,
      }),
    );
    rawBytes += Buffer.byteLength(JSON.stringify(raw));
    resultBytes += resultSize;
    const top = (
      projection.result.patterns as { count: number; level: string; service: string; example: string }[]
    )[0];
    kept.push(
      `${topic} "${query}": ${raw.events.length} events -> top pattern ${top ? `${top.count}x ${top.level} ${top.service}: ${top.example.slice(0, 70)}` : '(none)'}`,
    );
  }
  reportBench('query_logs_context_saving', {
    queries: QUERIES.length,
    raw_bytes: rawBytes,
    agent_result_bytes: resultBytes,
    raw_tokens_approx: Math.round(rawBytes / 4),
    agent_result_tokens_approx: Math.round(resultBytes / 4),
    reduction_factor: rawBytes / resultBytes,
    goal: '>= 5x',
  });
  process.stdout.write(`  kept:\n${kept.map((line) => `    ${line}`).join('\n')}\n`);
}

void main();
