import { z } from 'zod';
import type { HarnessToolDefinition } from '@app/harness';
import { argOf, asRecord } from '../projection/record-fields';
import { LOG_TOPICS, LogRawResponse, LogSourcePort, LogTopic } from './log-source.port';
import { projectLogs } from './query-logs-result-projector';
import type { QueryLogsConfig } from './query-logs.config';

export function queryLogsSchema(limits: QueryLogsConfig) {
  return z.object({
    topic: z
      .enum(LOG_TOPICS)
      .describe('APPLICATION (service logs), ACCESS (gateway requests) or DATABASE (database server).'),
    query: z
      .string()
      .trim()
      .min(1)
      .max(300)
      .describe('What to look for: a service name, an error code or class, an id, message words.'),
    lookback_minutes: z
      .number()
      .int()
      .min(1)
      .max(limits.maxLookbackMinutes)
      .default(limits.defaultLookbackMinutes)
      .describe(
        `How far back from now to search (default ${limits.defaultLookbackMinutes}, max ${limits.maxLookbackMinutes}).`,
      ),
  });
}
export type QueryLogsArgs = z.infer<ReturnType<typeof queryLogsSchema>>;

const DESCRIPTION = [
  'Search recent application, access or database logs within a time window ending now (or at the end of a replayed incident export).',
  'Returns aggregated message patterns (count, first/last seen) and a few time-ordered sample events, with the exact scope searched.',
  'Use it for live symptoms (errors, timeouts, pool exhaustion); not for documentation or business database records.',
  '查询最近的应用/访问/数据库日志，返回按模板聚合的模式和少量时间线事件。',
].join(' ');

/**
 * The query_logs evidence tool: the log source port -> QueryLogsResultProjector. `topics` are the
 * topics the configured log source serves (a JSON-lines source only its mapped ones), the only ones
 * the description names.
 */
export function queryLogsTool(
  source: LogSourcePort,
  limits: QueryLogsConfig,
  now: () => Date = () => new Date(),
  topics: readonly LogTopic[] = LOG_TOPICS,
): HarnessToolDefinition<QueryLogsArgs, LogRawResponse> {
  return {
    name: 'query_logs',
    description: `${DESCRIPTION} Topics: ${topics.join(', ')}. lookback_minutes: default ${limits.defaultLookbackMinutes}, at most ${limits.maxLookbackMinutes}.`,
    schema: queryLogsSchema(limits),
    readOnly: true,
    countedList: 'events',
    execute(args, signal) {
      const endTime = now();
      const startTime = new Date(endTime.getTime() - args.lookback_minutes * 60_000);
      return source.search({ topic: args.topic, query: args.query, startTime, endTime }, signal);
    },
    project: (raw) => projectLogs(raw, limits),
    summarizeArgs: (args) => ({
      topic: args.topic,
      lookback_minutes: args.lookback_minutes,
      query_chars: args.query.length,
    }),
    label: '日志 / logs',
    statusDetail: (args) => {
      const topic = argOf(args, 'topic');
      return (LOG_TOPICS as readonly unknown[]).includes(topic) ? String(topic) : undefined;
    },
    evidenceOf: (result) => {
      const scope = asRecord(result.scope);
      return {
        source_type: 'LOG',
        source: `${String(scope.topic ?? 'logs')} (${String(result.source_kind ?? 'UNKNOWN')})`,
        scope: `query: ${String(scope.query ?? '')}; ${String(scope.start_time ?? '')} – ${String(scope.end_time ?? '')}; ${String(result.match_count ?? 0)} matching events`,
        values: { patterns: result.patterns ?? [], events: result.events ?? [] },
      };
    },
  };
}
