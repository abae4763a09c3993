import type { LogFormatId } from './formats';

/**
 * Text a record's searchable text can hold that its line's bytes need not: the level word (a format may
 * derive it from a number, a priority or a status) and the service taken from the file's path or rule.
 */
const LEVEL_WORDS = 'error warn info debug';

/**
 * Characters outside ASCII whose lower case is an ASCII letter (`İ` -> `i̇`, the Kelvin sign -> `k`), as
 * UTF-8 and as the JSON escapes writers use for them: a line holding one is always examined.
 */
const CASE_FOLDING_INTO_ASCII = ['\u0130', '\u212a', '\\u0130', '\\u212a', '\\u212A'].map((text) =>
  Buffer.from(text, 'utf8'),
);

/** Per format, raw text that means a line's message is not written as text (journald's byte arrays). */
const ENCODED_MESSAGE: Partial<Record<LogFormatId, Buffer[]>> = {
  'journald-json': [Buffer.from('"MESSAGE":[')],
};

/**
 * A byte-level test for the lines that can match a query's required terms, run before any parse. Each
 * required term's runs of ASCII letters, digits and `_` must all occur in the line (ASCII
 * case-insensitive); runs are used because JSON, logfmt and syslog escape punctuation and non-ASCII text,
 * and a format joins fields with its own separators, but none of them changes a run of ASCII letters or
 * digits. A run the record may get from elsewhere (the level word, the file's service) is not required.
 * A line it rejects cannot match, so it is not examined; it is never counted as unread.
 */
export interface LinePrefilter {
  /** The rarest-looking run (the longest), searched first over a whole chunk. */
  primary: string;
  others: string[];
  /** Raw bytes that make a line always examined. */
  always: Buffer[];
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

/**
 * The lines of `bytes[start, end)` (whole lines) that can match, as [start, end) offsets into `bytes`
 * without the line break. The bytes are read as latin1 (one character per byte, so string offsets are
 * byte offsets) and searched with case-insensitive expressions, which fold ASCII letters only.
 */
export function candidateLines(
  bytes: Buffer,
  start: number,
  end: number,
  filter: LinePrefilter,
): [number, number][] {
  const text = bytes.toString('latin1', start, end);
  const primary = new RegExp(filter.primary, 'gi');
  const others = filter.others.map((run) => new RegExp(run, 'i'));
  const found: [number, number][] = [];
  const lineAround = (at: number): [number, number] => {
    const from = text.lastIndexOf('\n', at) + 1;
    const newline = text.indexOf('\n', at);
    return [from, newline < 0 ? text.length : newline];
  };
  const chunk = bytes.subarray(start, end);
  if (filter.always.some((marker) => chunk.includes(marker))) {
    // Rare: test line by line, keeping every line with a marker.
    const markers = filter.always.map((marker) => marker.toString('latin1'));
    const one = new RegExp(filter.primary, 'i');
    for (let from = 0; from < text.length;) {
      const [, to] = lineAround(from);
      const line = text.slice(from, to);
      if (
        (one.test(line) && others.every((run) => run.test(line))) ||
        markers.some((marker) => line.includes(marker))
      )
        found.push([start + from, start + to]);
      from = to + 1;
    }
    return found;
  }
  for (let hit = primary.exec(text); hit; hit = primary.exec(text)) {
    const [from, to] = lineAround(hit.index);
    const line = others.length > 0 ? text.slice(from, to) : '';
    if (others.every((run) => run.test(line))) found.push([start + from, start + to]);
    primary.lastIndex = to + 1;
  }
  return found;
}
