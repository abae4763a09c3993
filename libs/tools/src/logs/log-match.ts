import type { LogEvent } from './log-source.port';

type Level = LogEvent['level'];

/** A parsed query_logs query: every `include` term or phrase must occur, no `exclude` one may. */
export interface LogQueryTerms {
  include: string[];
  exclude: string[];
}

/** Structured filters the agent may add to a query (each optional; all given must hold). */
export interface LogFilters {
  /** The record's service, case-insensitive, exact. */
  service?: string;
  /** This level or a more severe one (ERROR > WARN > INFO > DEBUG). */
  level?: Level;
  /** An HTTP status (`504`) or class (`5xx`), from the record's mapped status field. */
  status?: string;
  /** A request path prefix (`/api/v1/payments`), from the record's mapped path field. */
  path?: string;
}

/** What a record offers the matcher: the event plus the structured values its format maps. */
export interface MatchableRecord {
  service: string;
  level: Level;
  message: string;
  fields?: Readonly<Record<string, string>>;
}

const TOKEN = /(-?)"([^"]*)"?|(-?)(\S+)/g;

/**
 * `payment-service "connection is not available" -200`: whitespace separates terms, double quotes make
 * a phrase, a leading `-` excludes; a hyphenated or dotted name is one term. Lower-cased, deduplicated.
 */
export function parseLogQuery(query: string): LogQueryTerms {
  const include = new Set<string>();
  const exclude = new Set<string>();
  for (const match of query.matchAll(TOKEN)) {
    const negated = (match[1] ?? match[3]) === '-';
    const text = (match[2] ?? match[4] ?? '').trim().toLowerCase();
    if (text === '' || text === '-') continue;
    (negated ? exclude : include).add(text);
  }
  return { include: [...include], exclude: [...exclude] };
}

const WORD = /[a-z0-9_]/;

/**
 * Whether `term` occurs in `text` (both lower-case) as a whole word: where the term begins or ends with
 * a letter, digit or `_`, the neighbouring character must not be one (`504` does not match `15043`;
 * `timeout` does not match `timeouts`). CJK and punctuation edges match anywhere.
 */
export function containsTerm(text: string, term: string): boolean {
  const checkStart = WORD.test(term[0]);
  const checkEnd = WORD.test(term[term.length - 1]);
  for (let at = text.indexOf(term); at >= 0; at = text.indexOf(term, at + 1)) {
    if (checkStart && at > 0 && WORD.test(text[at - 1])) continue;
    const end = at + term.length;
    if (checkEnd && end < text.length && WORD.test(text[end])) continue;
    return true;
  }
  return false;
}

/** The text a query is matched against: service, level, message and the mapped field values. */
export function searchableText(record: MatchableRecord): string {
  const fields = record.fields ? Object.values(record.fields).join(' ') : '';
  return `${record.service} ${record.level} ${record.message} ${fields}`.toLowerCase();
}

/** Every include term occurs and no exclude term does (an empty query matches everything). */
export function matchesTerms(record: MatchableRecord, terms: LogQueryTerms): boolean {
  if (terms.include.length === 0 && terms.exclude.length === 0) return true;
  const text = searchableText(record);
  return (
    terms.include.every((term) => containsTerm(text, term)) &&
    !terms.exclude.some((term) => containsTerm(text, term))
  );
}

const SEVERITY: Record<Level, number> = { ERROR: 3, WARN: 2, INFO: 1, DEBUG: 0 };

/** A status filter value: three digits, or a class like `5xx`. */
export const STATUS_FILTER = /^[1-5](?:\d\d|xx)$/i;

/** All given filters hold. A record without the mapped field a filter reads does not pass it. */
export function passesFilters(record: MatchableRecord, filters: LogFilters): boolean {
  if (filters.service !== undefined && record.service.toLowerCase() !== filters.service.toLowerCase()) {
    return false;
  }
  if (filters.level !== undefined && SEVERITY[record.level] < SEVERITY[filters.level]) return false;
  if (filters.status !== undefined) {
    const status = record.fields?.status;
    if (status === undefined) return false;
    const wanted = filters.status.toLowerCase();
    if (wanted.endsWith('xx') ? status[0] !== wanted[0] || status.length !== 3 : status !== wanted)
      return false;
  }
  if (filters.path !== undefined) {
    const path = record.fields?.path;
    if (path === undefined || !path.startsWith(filters.path)) return false;
  }
  return true;
}

/** The query's terms and the filters, together. */
export function matchesLogQuery(record: MatchableRecord, terms: LogQueryTerms, filters: LogFilters): boolean {
  return passesFilters(record, filters) && matchesTerms(record, terms);
}
