import type { ToolProjection } from '@app/harness';
import { clip, redactText } from '../projection/redaction';
import { LogEvent, LogRawResponse } from './log-source.port';

export interface LogProjectionLimits {
  maxPatterns: number;
  maxEvents: number;
  maxMessageChars: number;
  maxTotalChars: number;
}

interface Pattern {
  count: number;
  first_seen: string;
  last_seen: string;
  level: LogEvent['level'];
  service: string;
  example: string;
}

const SEVERITY: Record<LogEvent['level'], number> = { ERROR: 0, WARN: 1, INFO: 2, DEBUG: 3 };

const TIMESTAMP = /\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?/g;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
/**
 * A whole word of hex digits (optionally 0x-prefixed) with at least one digit, at least one letter a-f
 * and at least 6 characters: a generated id. The lookaheads do in the pattern what a replacer callback
 * per digit-bearing word would otherwise check.
 */
const HEX_ID = /\b(?=[0-9a-fx]{6})(?=(0x)?[0-9a-f]*[a-f])(0x)?[0-9a-f]*\d[0-9a-f]*\b/gi;
const NUMBER = /\d+(\.\d+)?/g;
const DIGIT = /\d/;

/**
 * A stable message template: timestamps, uuids, hex ids, ids with numbers and plain numbers normalised.
 * Runs once per returned log event, so steps that cannot match (every one needs a digit; a timestamp
 * a colon, a uuid a dash) are skipped.
 */
export function messageTemplate(message: string): string {
  if (!DIGIT.test(message)) return message;
  let template = message.includes(':') ? message.replace(TIMESTAMP, '<ts>') : message;
  if (template.includes('-')) template = template.replace(UUID, '<uuid>');
  return template.replace(HEX_ID, '<hex>').replace(NUMBER, '<n>');
}

/** Evenly spaced picks over a time-ordered list, keeping the first and last. */
function sample<T>(items: T[], count: number): T[] {
  if (items.length <= count) return items;
  if (count <= 0) return [];
  if (count === 1) return [items[items.length - 1]];
  return Array.from({ length: count }, (_, i) => items[Math.round((i * (items.length - 1)) / (count - 1))]);
}

const isImportant = (level: LogEvent['level']) => level === 'ERROR' || level === 'WARN';

/** Slots of a bounded list kept for INFO/DEBUG when errors and warnings could fill it. */
const quietShare = (max: number) => Math.max(1, Math.floor(max / 4));

/**
 * The first `max` of a severity-ranked list, except that when the list also holds quiet (INFO/DEBUG)
 * items, a share of the slots goes to the best of them: INFO is never dropped wholesale.
 */
function keepShare<T>(ranked: T[], max: number, important: (item: T) => boolean): T[] {
  if (ranked.length <= max || max <= 0) return ranked.slice(0, Math.max(0, max));
  const loud = ranked.filter(important);
  const quiet = ranked.filter((item) => !important(item));
  const quietSlots = Math.min(quiet.length, quietShare(max));
  const loudSlots = Math.min(loud.length, max - quietSlots);
  const kept = new Set([...loud.slice(0, loudSlots), ...quiet.slice(0, max - loudSlots)]);
  return ranked.filter((item) => kept.has(item));
}

/**
 * The time-ordered event sample: evenly spaced errors and warnings first, but once they alone could
 * fill it, a share stays for INFO/DEBUG so normal traffic (and what changed) remains visible.
 */
function pickEvents(events: LogEvent[], max: number): LogEvent[] {
  if (events.length <= max) return events;
  if (max <= 0) return [];
  const loud = events.filter((event) => isImportant(event.level));
  const quiet = events.filter((event) => !isImportant(event.level));
  const quietSlots = Math.min(quiet.length, quietShare(max));
  const loudSlots = Math.min(loud.length, max - quietSlots);
  const kept = new Set([...sample(loud, loudSlots), ...sample(quiet, max - loudSlots)]);
  return events.filter((event) => kept.has(event));
}

/** Services named in `totals.by_service` at most; the rest are summed under `(other)`. */
const MAX_SERVICES = 20;
/** Files and unreadable files listed at most (the counts are always complete). */
const MAX_FILES = 20;

/** Matches by level and by service, over every match (not only the returned sample). */
export function totalsOf(events: readonly LogEvent[]): {
  by_level: Record<LogEvent['level'], number>;
  by_service: Record<string, number>;
} {
  const byLevel: Record<LogEvent['level'], number> = { ERROR: 0, WARN: 0, INFO: 0, DEBUG: 0 };
  const services = new Map<string, number>();
  for (const event of events) {
    byLevel[event.level] += 1;
    services.set(event.service, (services.get(event.service) ?? 0) + 1);
  }
  const ranked = [...services].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const byService = Object.fromEntries(ranked.slice(0, MAX_SERVICES));
  const other = ranked.slice(MAX_SERVICES).reduce((sum, [, count]) => sum + count, 0);
  if (other > 0) byService['(other)'] = other;
  return { by_level: byLevel, by_service: byService };
}

/**
 * What a FILE result could not read in its scope, as a typed block the evidence view carries to the
 * release (`LogCompleteness`): unreadable lines in the window and files that could not be read.
 */
export interface LogCompleteness {
  complete: boolean;
  unreadable_lines: number;
  unreadable_files: number;
}

/** FILE results: files searched with their ranges, unreadable files, and a note when anything was unread. */
function fileScopeOf(raw: LogRawResponse): Record<string, unknown> {
  if (raw.files === undefined) return {};
  const unreadableLines = raw.unreadable_lines ?? 0;
  const unreadableFiles = raw.unreadable_files ?? [];
  const completeness: LogCompleteness = {
    complete: unreadableLines === 0 && unreadableFiles.length === 0,
    unreadable_lines: unreadableLines,
    unreadable_files: unreadableFiles.length,
  };
  const notes: string[] = [];
  const long = raw.files
    .filter((file) => (file.long_lines ?? 0) > 0)
    .map((file) => ({ file: file.file, count: file.long_lines! }));
  if (raw.match_limit) {
    const limit = raw.match_limit;
    notes.push(
      `The scan stopped at ${limit.matches} matches (${limit.by === 'MATCHES' ? 'the match limit' : 'what the evidence record holds'}): ` +
        `the window was searched from ${raw.start_time} to ${limit.scanned_to} only` +
        `${limit.files_not_scanned > 0 ? ` and ${limit.files_not_scanned} file(s) were not reached` : ''}; totals count the matches so far. ` +
        'Narrow the query, add filters or shorten the window to see the rest.',
    );
  }
  if (long.length > 0) {
    notes.push(
      `${long.reduce((sum, entry) => sum + entry.count, 0)} line(s) longer than the line limit were skipped unread (see long_lines); they count as unreadable.`,
    );
  }
  if (unreadableLines > 0) {
    const lines = unreadableLines === 1 ? '1 line' : `${unreadableLines} lines`;
    notes.push(
      `${lines} in the searched window could not be read; absence of a match there is not proven. State this as a limitation.`,
    );
  }
  if (unreadableFiles.length > 0) {
    notes.push(
      `${unreadableFiles.length} file(s) of the logs directory could not be read (see unreadable_files); they were not searched.`,
    );
  }
  const from = Date.parse(raw.start_time);
  const to = Date.parse(raw.end_time);
  const ranged = raw.files.filter((file) => file.from !== null && file.to !== null);
  const overlapping = ranged.filter((file) => Date.parse(file.to!) >= from && Date.parse(file.from!) <= to);
  if (raw.files.length === 0) {
    notes.push(`No readable file of the logs directory has topic ${raw.topic}.`);
  } else if (overlapping.length === 0 && ranged.length > 0) {
    const first = ranged.map((file) => file.from!).sort()[0];
    const last = ranged.map((file) => file.to!).sort()[ranged.length - 1];
    notes.push(
      `The searched window does not overlap the ${raw.topic} files, which cover ${first} – ${last}; nothing in the window was searchable.`,
    );
  }
  return {
    files: raw.files
      .slice(0, MAX_FILES)
      .map((file) => ({ file: file.file, format: file.format, from: file.from, to: file.to })),
    ...(unreadableFiles.length > 0 ? { unreadable_files: unreadableFiles.slice(0, MAX_FILES) } : {}),
    unreadable_lines: unreadableLines,
    ...(long.length > 0 ? { long_lines: long.slice(0, MAX_FILES) } : {}),
    ...(raw.match_limit ? { match_limit: raw.match_limit } : {}),
    completeness,
    ...(notes.length > 0 ? { note: notes.join(' ') } : {}),
  };
}

/**
 * QueryLogsResultProjector: patterns by stable template with count and first/last seen,
 * a small time-ordered sample that favours errors and warnings but keeps a share for INFO, secrets redacted, and the full query
 * scope always returned so a partial result is never read as a global one.
 */
export function projectLogs(raw: LogRawResponse, limits: LogProjectionLimits): ToolProjection {
  const groups = new Map<string, Pattern>();
  for (const event of raw.events) {
    const key = `${event.service}|${event.level}|${messageTemplate(event.message)}`;
    const pattern = groups.get(key);
    if (pattern) {
      pattern.count += 1;
      pattern.last_seen = event.timestamp;
    } else {
      const example = clip(redactText(event.message), limits.maxMessageChars).text;
      groups.set(key, {
        count: 1,
        first_seen: event.timestamp,
        last_seen: event.timestamp,
        level: event.level,
        service: event.service,
        example,
      });
    }
  }
  const ranked = [...groups.values()].sort(
    (a, b) => SEVERITY[a.level] - SEVERITY[b.level] || b.count - a.count,
  );
  let truncated = ranked.length > limits.maxPatterns;
  let patterns = keepShare(ranked, limits.maxPatterns, (pattern) => isImportant(pattern.level));

  let events = pickEvents(raw.events, limits.maxEvents).map((event) => ({
    timestamp: event.timestamp,
    level: event.level,
    service: event.service,
    message: clip(redactText(event.message), limits.maxMessageChars).text,
  }));
  truncated ||=
    raw.match_limit !== undefined ||
    events.length < raw.events.length ||
    raw.events.some((event) => event.message.length > limits.maxMessageChars);

  const size = () => JSON.stringify(patterns).length + JSON.stringify(events).length;
  while (size() > limits.maxTotalChars && (events.length > 0 || patterns.length > 1)) {
    truncated = true;
    if (events.length > 0) events = events.slice(0, -1);
    else patterns = patterns.slice(0, -1);
  }

  return {
    evidenceStatus: raw.events.length > 0 ? 'EVIDENCE_FOUND' : 'NO_EVIDENCE',
    result: {
      source_kind: raw.source_kind,
      scope: {
        topic: raw.topic,
        query: raw.query,
        ...(raw.filters && Object.keys(raw.filters).length > 0 ? { filters: raw.filters } : {}),
        start_time: raw.start_time,
        end_time: raw.end_time,
      },
      match_count: raw.events.length,
      totals: totalsOf(raw.events),
      returned_count: events.length,
      patterns,
      events,
      ...fileScopeOf(raw),
    },
    truncated,
  };
}
