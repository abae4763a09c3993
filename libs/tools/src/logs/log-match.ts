import { tokenize } from '../knowledge/text-tokenizer';
import type { LogEvent } from './log-source.port';

/** The distinct search terms of a query_logs query. */
export function queryTerms(query: string): string[] {
  return [...new Set(tokenize(query))];
}

/** How many of the query's terms an event must contain: at least half, and at least one. */
export function requiredHits(terms: string[]): number {
  return Math.max(1, Math.ceil(terms.length / 2));
}

/** An event matches when it contains at least half of the query's terms (service names count). */
export function matchesQuery(event: Pick<LogEvent, 'service' | 'message'>, terms: string[]): boolean {
  if (terms.length === 0) return true;
  const haystack = new Set(tokenize(`${event.service} ${event.message}`));
  const hits = terms.filter((term) => haystack.has(term)).length;
  return hits >= requiredHits(terms);
}
