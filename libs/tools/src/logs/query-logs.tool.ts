import { z } from 'zod';
import type { EvidenceGap, HarnessToolDefinition } from '@app/harness';
import { argOf, asRecord } from '../projection/record-fields';
import { REAL_LOG_SOURCE_KINDS } from './log-backends';
import { LogFilters, STATUS_FILTER } from './log-match';
import { LOG_TOPICS, LogRawResponse, LogSourcePort, LogTopic } from './log-source.port';
import { projectLogs } from './query-logs-result-projector';
import type { QueryLogsConfig } from './query-logs.config';
import { QUERY_LOGS_FAILURE_CODES } from './query-logs.codes';

export function queryLogsSchema(limits: QueryLogsConfig) {
  return z.object({
    topic: z
      .enum(LOG_TOPICS)
      .describe(
        'APPLICATION (service logs), ACCESS (gateway/web server requests) or DATABASE (database server).',
      ),
    query: z
      .string()
      .trim()
      .max(300)
      .default('')
      .describe(
        'Terms that must ALL occur (whole words, case-insensitive) in the message, service, level or a mapped field ' +
          '(request/trace id, path, status): `api-gateway timeout`. "Quoted phrase" matches as written; ' +
          '-term excludes. A hyphenated or dotted name is one term. Empty = every event (with the filters).',
      ),
    lookback_minutes: z
      .number()
      .int()
      .min(1)
      .max(limits.maxLookbackMinutes)
      .default(limits.defaultLookbackMinutes)
      .describe(
        `How far back from now to search (default ${limits.defaultLookbackMinutes}, max ${limits.maxLookbackMinutes}).`,
      ),
    service: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe('Only this service (exact, case-insensitive).'),
    level: z
      .enum(['ERROR', 'WARN', 'INFO', 'DEBUG'])
      .optional()
      .describe('Only events of this level or more severe (WARN = WARN and ERROR).'),
    status: z
      .string()
      .trim()
      .regex(STATUS_FILTER)
      .optional()
      .describe(
        'Only requests with this HTTP status (`504`) or class (`5xx`); access logs and JSON with a status.',
      ),
    path: z
      .string()
      .trim()
      .min(1)
      .max(300)
      .optional()
      .describe('Only requests whose path starts with this (`/api/v1/payments`).'),
  });
}
export type QueryLogsArgs = z.infer<ReturnType<typeof queryLogsSchema>>;

const DESCRIPTION = [
  'Search recent application, access or database logs within a time window ending now (or at the time the request names for an alert, or at the end of a replayed incident export).',
  'Matching: every query term must occur (AND), phrases in double quotes, -term excludes; filters service, level (at least), status, path narrow further.',
  'Returns totals by level and service over all matches, aggregated message patterns (count, first/last seen) and a few time-ordered sample events, with the exact scope searched;',
  'FILE results also name the files searched with their time ranges, files that could not be read, and unreadable lines in the window (state those as a limitation).',
  'Timestamps written without a zone are read in the configured zone of their file (default UTC); times in results are UTC.',
  'Use it for live symptoms (errors, timeouts, pool exhaustion); not for documentation or business database records.',
  '查询最近的应用/访问/数据库日志：所有关键词都须出现，返回按级别/服务的总数、模式和少量时间线事件。',
].join(' ');

function filtersOf(args: QueryLogsArgs): LogFilters {
  const filters: LogFilters = {};
  if (args.service !== undefined) filters.service = args.service;
  if (args.level !== undefined) filters.level = args.level;
  if (args.status !== undefined) filters.status = args.status;
  if (args.path !== undefined) filters.path = args.path;
  return filters;
}

/** The typed gap a FILE result declares (`completeness`), or null when it read everything in scope. */
export function logGapOf(result: Record<string, unknown>): EvidenceGap | null {
  const completeness = asRecord(result.completeness);
  if (completeness.complete !== false) return null;
  const lines = Number(completeness.unreadable_lines ?? 0);
  const files = Number(completeness.unreadable_files ?? 0);
  return {
    unreadable_lines: Number.isFinite(lines) ? lines : 0,
    unreadable_files: Number.isFinite(files) ? files : 0,
  };
}

/**
 * The query_logs evidence tool: the log source port -> QueryLogsResultProjector. `topics` are the
 * topics the description names.
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
    failureCodes: QUERY_LOGS_FAILURE_CODES,
    countedList: 'events',
    execute(args, signal, ctx) {
      // An alert-started run anchors the window at its alert; every other run ends it now.
      const endTime = ctx.timeAnchor ?? now();
      const startTime = new Date(endTime.getTime() - args.lookback_minutes * 60_000);
      return source.search(
        { topic: args.topic, query: args.query, startTime, endTime, filters: filtersOf(args) },
        signal,
      );
    },
    project: (raw) => projectLogs(raw, limits),
    summarizeArgs: (args) => ({
      topic: args.topic,
      lookback_minutes: args.lookback_minutes,
      query_chars: args.query.length,
      ...(args.level ? { level: args.level } : {}),
      ...(args.status ? { status: args.status } : {}),
      filters: Object.keys(filtersOf(args)).length,
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
        // Only a kind a registered backend declares real is not demo data (an unknown kind is demo).
        demo: !REAL_LOG_SOURCE_KINDS.has(String(result.source_kind)),
      };
    },
    gapOf: (result) => logGapOf(result),
  };
}
