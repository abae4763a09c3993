import type { LogFormatId } from './formats';

/**
 * Text a record's searchable text can hold that its line's bytes need not: the level word (a format may
 * derive it from a number, a priority or a status) and the service taken from the file's path or rule.
 */
const LEVEL_WORDS = 'error warn info debug';

/**
 * Characters outside ASCII whose lower case is an ASCII letter (`İ` -> `i̇`, Kelvin `K` -> `k`), as UTF-8
 * bytes and as the JSON escapes some writers use: a line holding one is always examined.
 */
const CASE_FOLDING_INTO_ASCII = ['\u00c4\u00b0', '\u00e2\u0084\u00aa', '\\u0130', '\\u212a'].map((text) =>
  text.toLowerCase(),
);

/** Per format, raw text that means a line's message is not written as text (journald's byte arrays). */
const ENCODED_MESSAGE: Partial<Record<LogFormatId, string[]>> = {
  'journald-json': ['"message":['],
};

/**
 * A byte-level test for the lines that can match a query's required terms, run before any parse. Each
 * required term's runs of ASCII letters, digits and `_` must all occur in the line (case-insensitive);
 * runs are used because JSON, logfmt and syslog escape punctuation and non-ASCII text, and a format joins
 * fields with its own separators, but none of them changes a run of ASCII letters or digits. A run the
 * record may get from elsewhere (the level word, the file's service) is not required. A line it rejects
 * cannot match, so it is not examined; it is never counted as unread.
 */
export interface LinePrefilter {
  /** The rarest-looking run (the longest), searched first over a whole chunk. */
  primary: string;
  others: string[];
  /** Raw text (lower case) that makes a line always examined. */
  always: string[];
}

const RUN = /[a-z0-9_]+/g;

/**
 * The prefilter for a query's required terms in one file, or null when no run can be required (every
 * line is then parsed). `fallbackService` is the service records of the file get when they name none.
 */
export function prefilterOf(
  include: readonly string[],
  format: { id: LogFormatId; continuation?: unknown },
  fallbackService: string | null,
): LinePrefilter | null {
  // A record of a multi-line format spans lines: the term may be in a continuation line, so parse all.
  if (format.continuation) return null;
  const synthetic = `${LEVEL_WORDS} ${(fallbackService ?? 'unknown').toLowerCase()}`;
  const runs = new Set<string>();
  for (const term of include) {
    for (const [run] of term.toLowerCase().matchAll(RUN)) {
      if (!synthetic.includes(run)) runs.add(run);
    }
  }
  if (runs.size === 0) return null;
  const [primary, ...others] = [...runs].sort((a, b) => b.length - a.length || a.localeCompare(b));
  return { primary, others, always: [...CASE_FOLDING_INTO_ASCII, ...(ENCODED_MESSAGE[format.id] ?? [])] };
}

const hasAll = (line: string, filter: LinePrefilter) =>
  line.includes(filter.primary) && filter.others.every((run) => line.includes(run));

/**
 * The lines of `text` (one chunk of whole lines, lower-cased latin1: one character per byte, so string
 * offsets are byte offsets) that can match, as [start, end) without the line break.
 */
export function candidateLines(text: string, filter: LinePrefilter): [number, number][] {
  const found: [number, number][] = [];
  const lineAround = (at: number): [number, number] => {
    const start = text.lastIndexOf('\n', at) + 1;
    const newline = text.indexOf('\n', at);
    return [start, newline < 0 ? text.length : newline];
  };
  if (filter.always.some((marker) => text.includes(marker))) {
    // Rare: test line by line, keeping every line with a marker.
    for (let start = 0; start < text.length;) {
      const [, end] = lineAround(start);
      const line = text.slice(start, end);
      if (hasAll(line, filter) || filter.always.some((marker) => line.includes(marker)))
        found.push([start, end]);
      start = end + 1;
    }
    return found;
  }
  for (let at = text.indexOf(filter.primary); at >= 0;) {
    const [start, end] = lineAround(at);
    if (filter.others.every((run) => text.slice(start, end).includes(run))) found.push([start, end]);
    at = end + 1 < text.length ? text.indexOf(filter.primary, end + 1) : -1;
  }
  return found;
}

/** A chunk's bytes as the text `candidateLines` reads. */
export function lowerLatin1(bytes: Buffer, start: number, end: number): string {
  return bytes.toString('latin1', start, end).toLowerCase();
}
