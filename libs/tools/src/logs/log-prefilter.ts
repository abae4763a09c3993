import {
  anchorOf,
  asciiCaseScan,
  asciiCaseSearch,
  ByteScan,
  ByteSearch,
  rarityOf,
} from './ascii-case-search';
import { type LogFormatId, MAX_JOINED_LINES } from './formats';

/**
 * Text a record's searchable text can hold that its line's bytes need not: the level word (a format may
 * derive it from a number, a priority or a status) and the service taken from the file's path or rule.
 */
const LEVEL_WORDS = 'error warn info debug';

/**
 * The characters outside ASCII whose lower case holds an ASCII letter, as UTF-8 and as the JSON escapes
 * writers use for them, each with the runs it can complete: the Kelvin sign lowers to `k` anywhere in a
 * run; `İ` lowers to `i` plus a combining dot, so it completes a run only as its last letter. A line
 * holding one is always examined when a required run can be completed by it (each costs a pass over the
 * bytes, so only then).
 */
const CASE_FOLDING_INTO_ASCII: { completes: (run: string) => boolean; markers: Buffer[] }[] = [
  { completes: (run) => run.includes('k'), markers: ['\u212a', '\\u212a', '\\u212A'].map(bytesOf) },
  { completes: (run) => run.endsWith('i'), markers: ['\u0130', '\\u0130'].map(bytesOf) },
];

function bytesOf(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

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
  /** The rarest-looking run (see searchOrderOf), searched first over a whole chunk. */
  primary: string;
  others: string[];
  /** Raw bytes that make a line always examined. */
  always: Buffer[];
  /**
   * The chunk scan for the primary run (ASCII case-insensitive), built once per scan of a file; where
   * the primary's anchor byte proves common, the longest run's skip search takes over (it skips further).
   */
  scanPrimary: (bytes: Buffer, from: number, to: number) => ByteScan;
  /**
   * The same with the primary's own skip search, for records that span lines: the other run's skip
   * search hands back to the anchors at a line start, which may be inside a record holding the primary
   * before it and the other run after it.
   */
  scanPrimaryInRecords: (bytes: Buffer, from: number, to: number) => ByteScan;
  /** Every run's search, to test a candidate line (the scan may have found it by another run). */
  findEach: ByteSearch[];
}

const RUN = /[a-z0-9_]+/g;

/**
 * The prefilter for a query's required terms in one file, or null when no run can be required (every
 * line is then parsed). `fallbackService` is the service records of the file get when they name none.
 */
export function prefilterOf(
  include: readonly string[],
  format: { id: LogFormatId },
  fallbackService: string | null,
): LinePrefilter | null {
  const synthetic = `${LEVEL_WORDS} ${(fallbackService ?? 'unknown').toLowerCase()}`;
  const runs = new Set<string>();
  for (const term of include) {
    for (const [run] of term.toLowerCase().matchAll(RUN)) {
      if (!synthetic.includes(run)) runs.add(run);
    }
  }
  if (runs.size === 0) return null;
  const [primary, ...others] = searchOrderOf([...runs]);
  const longest = [...runs].sort((a, b) => b.length - a.length || a.localeCompare(b))[0];
  return {
    primary,
    others,
    always: [
      ...CASE_FOLDING_INTO_ASCII.filter(({ completes }) => [...runs].some(completes)).flatMap(
        ({ markers }) => markers,
      ),
      ...(ENCODED_MESSAGE[format.id] ?? []),
    ],
    // Where the primary's anchor proves common, the longest run skips furthest.
    scanPrimary: asciiCaseScan(primary, asciiCaseSearch(longest)),
    scanPrimaryInRecords: asciiCaseScan(primary),
    findEach: [primary, ...others].map(asciiCaseSearch),
  };
}

/**
 * The runs in the order to search them: first the one likely to occur least, as its anchor byte
 * (`anchorOf`) is rarest, among the runs at least half as long as the longest (a short run occurs more
 * often by chance); then longest first, then alphabetical.
 */
export function searchOrderOf(runs: readonly string[]): string[] {
  const longest = Math.max(...runs.map((run) => run.length));
  const rarity = (run: string) => {
    if (2 * run.length < longest) return -1;
    const bytes = Buffer.from(run, 'utf8');
    return rarityOf(bytes[anchorOf(bytes)]);
  };
  return [...runs].sort((a, b) => rarity(b) - rarity(a) || b.length - a.length || a.localeCompare(b));
}

/**
 * The lines of `bytes[start, end)` (whole lines) that can match, as [start, end) offsets into `bytes`
 * without the line break, in order. The bytes are searched as they are (no decoding, no copy): the
 * primary run over the whole chunk (by its rarest byte, see asciiCaseScan), then every run only in the
 * line around each hit; line breaks are looked for only there. Lines holding an `always` marker are
 * added whatever they hold.
 */
export function candidateLines(
  bytes: Buffer,
  start: number,
  end: number,
  filter: LinePrefilter,
): [number, number][] {
  const lineAround = (at: number): [number, number] => {
    const from = at > start ? Math.max(start, bytes.lastIndexOf(10, at - 1) + 1) : start;
    const newline = bytes.indexOf(10, at);
    return [from, newline < 0 || newline >= end ? end : newline];
  };
  const found: [number, number][] = [];
  const primary = filter.scanPrimary(bytes, start, end);
  for (let at = start; at < end;) {
    const hit = primary.next(at);
    if (hit < 0) break;
    const [from, to] = lineAround(hit);
    if (filter.findEach.every((find) => find(bytes, from, to) >= 0)) found.push([from, to]);
    at = to + 1;
  }
  const marked = markedOffsets(bytes.subarray(start, end), filter.always).map((at) => lineAround(start + at));
  if (marked.length === 0) return found;
  // Rare: merge the marked lines in, each line once.
  const byStart = new Map<number, [number, number]>();
  for (const line of [...found, ...marked]) byStart.set(line[0], line);
  return [...byStart.values()].sort((a, b) => a[0] - b[0]);
}

/** Offsets in `chunk` where any marker occurs, at most one per marker per line. */
function markedOffsets(chunk: Buffer, markers: readonly Buffer[]): number[] {
  const hits: number[] = [];
  for (const marker of markers) {
    for (let hit = chunk.indexOf(marker); hit >= 0;) {
      hits.push(hit);
      const newline = chunk.indexOf(10, hit);
      if (newline < 0) break;
      hit = chunk.indexOf(marker, newline + 1);
    }
  }
  return hits;
}

/**
 * For a format whose records span lines (a stack trace under its log line): the byte spans of `bytes[start,
 * end)` to feed, each whole lines starting at a record's first line — the record around each hit of the
 * primary run (back to the line that starts it, on to the line before the next one), kept when every run
 * is somewhere in it; the record of a line holding an `always` marker; and, whatever they hold, the
 * chunk's first lines up to its first record start (the end of a record the previous chunk began) and
 * its last record (which the next chunk may continue). A record in between holds no hit, so it cannot
 * match. Null when a record's first line is more than MAX_JOINED_LINES away from a hit: feed the chunk
 * whole then (the reader refuses such a record anyway). `startsRecord` tells a line that is not a
 * continuation.
 */
export function candidateRecords(
  bytes: Buffer,
  start: number,
  end: number,
  filter: LinePrefilter,
  startsRecord: (line: string) => boolean,
): [number, number][] | null {
  const lineEnd = (from: number) => {
    const newline = bytes.indexOf(10, from);
    return newline < 0 || newline >= end ? end : newline;
  };
  const lineStartOf = (at: number) =>
    at > start ? Math.max(start, bytes.lastIndexOf(10, at - 1) + 1) : start;
  const isStart = (from: number) => {
    const to = lineEnd(from);
    return startsRecord(bytes.toString('utf8', from, to > from && bytes[to - 1] === 13 ? to - 1 : to));
  };
  /** The record's first line at or before the line at `from`; the chunk's start when the record began before it. */
  const recordStart = (from: number): number | null => {
    let at = from;
    for (let walked = 0; !isStart(at); walked += 1) {
      if (at === start) return start;
      if (walked > MAX_JOINED_LINES) return null;
      at = lineStartOf(at - 1);
    }
    return at;
  };
  /** Where the record whose first line is at `from` ends: the next record's first line, or the chunk's end. */
  const recordEnd = (from: number): number => {
    let at = lineEnd(from) + 1;
    for (let walked = 0; at < end && walked <= MAX_JOINED_LINES && !isStart(at); walked += 1) {
      at = lineEnd(at) + 1;
    }
    return Math.min(at, end);
  };
  const spans: [number, number][] = [];
  if (!isStart(start)) spans.push([start, recordEnd(start)]);
  const around = (at: number): [number, number] | null => {
    const from = recordStart(lineStartOf(at));
    return from === null ? null : [from, recordEnd(from)];
  };
  const primary = filter.scanPrimaryInRecords(bytes, start, end);
  for (let at = start; at < end;) {
    const hit = primary.next(at);
    if (hit < 0) break;
    const record = around(hit);
    if (record === null) return null;
    if (filter.findEach.every((find) => find(bytes, record[0], record[1]) >= 0)) spans.push(record);
    at = Math.max(record[1], hit + 1);
  }
  for (const at of markedOffsets(bytes.subarray(start, end), filter.always)) {
    const record = around(start + at);
    if (record === null) return null;
    spans.push(record);
  }
  const last = recordStart(lineStartOf(end > start && bytes[end - 1] === 10 ? end - 1 : end));
  if (last === null) return null;
  spans.push([last, end]);
  return mergedSpans(spans);
}

/** Overlapping or touching spans joined, in order. */
function mergedSpans(spans: [number, number][]): [number, number][] {
  const merged: [number, number][] = [];
  for (const [from, to] of [...spans].sort((a, b) => a[0] - b[0])) {
    const previous = merged.at(-1);
    if (previous && from <= previous[1]) previous[1] = Math.max(previous[1], to);
    else merged.push([from, to]);
  }
  return merged;
}
