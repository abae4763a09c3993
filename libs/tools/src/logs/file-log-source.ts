import { ToolFailure } from '@app/harness';
import { LogDirectoryConfig, LogFilePlan, LogFileProblem, planLogDirectory, reasonOf } from './log-files';
import { parseLogQuery } from './log-match';
import { InlineLogScanner, LogScanner } from './log-scan-pool';
import type { ScanFile } from './log-scan';
import { LogQuery, LogRawResponse, LogSourcePort } from './log-source.port';
import type { QueryLogsFailureCode } from './query-logs.codes';

export interface FileLogSourceConfig extends LogDirectoryConfig {
  /** At most this many matching events in one result; the scan stops at the first one over. */
  maxMatches: number;
  /**
   * Bytes of the evidence record this source's raw result may fill: the record limit less the agent
   * result and the call's own fields. The match byte budget is what is left after the file lists.
   */
  maxRawBytes: number;
  /** Lines longer than this are skipped, counted and named (LOGS_MAX_LINE_BYTES). */
  maxLineBytes: number;
}

/** Room kept per file for its coverage entry beside its name (format, times, counts). */
const FILE_ENTRY_BYTES = 200;
/** Room kept for an invocation record's own fields (ids, args, times, status). */
const CALL_FIELDS_BYTES = 8192;
/** Room kept for the query, filters, window, counts and match-limit block of a raw result. */
const SCOPE_BYTES = 4096;

/** What the evidence record leaves a log source's raw result: less the agent result and the call's fields. */
export function rawBytesOf(evidence: { maxRecordBytes: number; maxAgentResultBytes: number }): number {
  return evidence.maxRecordBytes - evidence.maxAgentResultBytes - CALL_FIELDS_BYTES;
}

const scanFileOf = (plan: LogFilePlan): ScanFile => ({
  file: plan.file,
  path: plan.path,
  format: plan.format.id,
  service: plan.service,
  context: plan.context,
  size: plan.size,
  modified: plan.modified,
});

/**
 * The FILE log source: every file of one directory, each read with its own format (detected, or named by
 * a rule) and topic. The directory is listed and planned here; the scan runs in the scanner (the worker
 * pool in the service): only the part of a time-ordered file that holds the window is read, and only
 * lines that can hold the query's terms are parsed. A file that cannot be read fails only itself: it is
 * named with its reason in the result and the readable files are still searched.
 */
export class FileLogSource extends LogSourcePort {
  constructor(
    private readonly config: FileLogSourceConfig,
    private readonly scanner: LogScanner = new InlineLogScanner(),
  ) {
    super();
  }

  async search(query: LogQuery, signal: AbortSignal): Promise<LogRawResponse> {
    let planned: { plans: LogFilePlan[]; problems: LogFileProblem[] };
    try {
      planned = await planLogDirectory(this.config);
    } catch (error) {
      throw new ToolFailure<QueryLogsFailureCode>(
        'LOG_DIRECTORY_UNREADABLE',
        `The logs directory cannot be read: ${reasonOf(error)}.`,
      );
    }
    signal.throwIfAborted();
    const filters = query.filters ?? {};
    const plans = planned.plans.filter((candidate) => candidate.topic === query.topic);
    // The raw result's other parts: each file's coverage entry, the unreadable files, the scope.
    const listed =
      plans.reduce((sum, plan) => sum + Buffer.byteLength(JSON.stringify(plan.file)) + FILE_ENTRY_BYTES, 0) +
      Buffer.byteLength(JSON.stringify(planned.problems));
    const maxMatchBytes = this.config.maxRawBytes - listed - SCOPE_BYTES;
    const outcome = await this.scanner.scan(
      {
        files: plans.map(scanFileOf),
        window: { from: query.startTime.getTime(), to: query.endTime.getTime() },
        terms: parseLogQuery(query.query),
        filters,
        maxLineBytes: this.config.maxLineBytes,
        maxMatches: this.config.maxMatches,
        maxMatchBytes,
      },
      signal,
    );
    const files = [...outcome.files].sort((a, b) => a.file.localeCompare(b.file));
    const matches = outcome.matches.sort((a, b) => a.at - b.at);
    return {
      source_kind: 'FILE',
      topic: query.topic,
      query: query.query,
      start_time: query.startTime.toISOString(),
      end_time: query.endTime.toISOString(),
      ...(Object.keys(filters).length > 0 ? { filters } : {}),
      events: matches.map(({ at: _at, ...event }) => event),
      unreadable_lines: files.reduce((sum, file) => sum + file.unreadable_lines, 0),
      files,
      unreadable_files: [...planned.problems, ...outcome.problems],
      ...(outcome.limit ? { match_limit: outcome.limit } : {}),
    };
  }

  async onModuleDestroy(): Promise<void> {
    await this.scanner.close();
  }
}
