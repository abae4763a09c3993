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
const CASE_FOLDING_INTO_ASCII: { completes: (run: string) => boolean; markers: LineMarker[] }[] = [
  {
    completes: (run) => run.includes('k'),
    markers: ['\u212a', '\\u212a', '\\u212A'].map((text) => markerOf(text)),
  },
  { completes: (run) => run.endsWith('i'), markers: ['\u0130', '\\u0130'].map((text) => markerOf(text)) },
];

/** Raw bytes that make a line always examined; `holds`, when given, confirms a hit at its offset. */
export interface LineMarker {
  bytes: Buffer;
  holds?: (chunk: Buffer, at: number) => boolean;
}

function markerOf(text: string, holds?: LineMarker['holds']): LineMarker {
  return { bytes: Buffer.from(text, 'utf8'), holds };
}

const isWordByte = (byte: number) =>
  (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte === 95;
const hexOf = (byte: number) =>
  byte >= 48 && byte <= 57
    ? byte - 48
    : byte >= 65 && byte <= 70
      ? byte - 55
      : byte >= 97 && byte <= 102
        ? byte - 87
        : NaN;

/**
 * A JSON `\u00XX` escape the parsed text holds as an ASCII letter, digit or `_` (`\u0074imeout` is
 * `timeout`), as a backslash (an escape again for a line Docker wraps), or as a control character that
 * a re-serialised object writes as `\b \t \n \f \r`.
 */
const ESCAPED_ASCII = markerOf('\\u00', (chunk, at) => {
  const byte = 16 * hexOf(chunk[at + 4]) + hexOf(chunk[at + 5]);
  return (
    isWordByte(byte) || byte === 92 || byte === 8 || byte === 9 || byte === 10 || byte === 12 || byte === 13
  );
});

const MESSAGE_KEY = Buffer.from('"MESSAGE"');
/** journald's `MESSAGE` written as a byte array: `"MESSAGE"`, JSON whitespace, `:`, JSON whitespace, `[`. */
const isJsonSpace = (byte: number) => byte === 32 || byte === 9 || byte === 10 || byte === 13;
const BYTE_ARRAY_MESSAGE = markerOf('[', (chunk, at) => {
  let i = at - 1;
  while (i >= 0 && isJsonSpace(chunk[i])) i -= 1;
  if (chunk[i] !== 58) return false;
  i -= 1;
  while (i >= 0 && isJsonSpace(chunk[i])) i -= 1;
  const from = i + 1 - MESSAGE_KEY.length;
  return from >= 0 && chunk.subarray(from, i + 1).equals(MESSAGE_KEY);
});

/** logfmt's escape: a backslash before a letter or digit is dropped, joining the runs around it. */
const LOGFMT_ESCAPE = markerOf('\\', (chunk, at) => isWordByte(chunk[at + 1]));
const DOCKER_LOG = Buffer.from('{"log":"');
/** Whether the line around `at` is a Docker line whose application line is logfmt (`{"log":"key=`). */
const dockerLogfmtLine = (chunk: Buffer, at: number) => {
  const from = chunk.lastIndexOf(10, at) + 1;
  if (!chunk.subarray(from, from + DOCKER_LOG.length).equals(DOCKER_LOG)) return false;
  let i = from + DOCKER_LOG.length;
  while (isWordByte(chunk[i]) || chunk[i] === 46 || chunk[i] === 64 || chunk[i] === 45) i += 1;
  return i > from + DOCKER_LOG.length && chunk[i] === 61;
};
/**
 * The same inside Docker's JSON, where the application's backslash is written `\\`: only in a logfmt
 * application line (a Windows path in a stack trace is no escape to any other format).
 */
const LOGFMT_ESCAPE_IN_JSON = markerOf(
  '\\\\',
  (chunk, at) => isWordByte(chunk[at + 2]) && dockerLogfmtLine(chunk, at),
);

/**
 * Per format, what in a line's bytes means its parsed text may hold runs of ASCII letters and digits
 * the bytes do not (the format decodes or rewrites text there): such a line is always examined.
 * Numbers are the exception, named in docs/logs.md: a JSON number is read as JavaScript prints it.
 */
const REWRITTEN_TEXT: Partial<Record<LogFormatId, LineMarker[]>> = {
  json: [ESCAPED_ASCII],
  'ecs-json': [ESCAPED_ASCII],
  'logstash-json': [ESCAPED_ASCII],
  'pino-json': [ESCAPED_ASCII],
  'bunyan-json': [ESCAPED_ASCII],
  'journald-json': [ESCAPED_ASCII, BYTE_ARRAY_MESSAGE],
  'docker-json': [ESCAPED_ASCII, LOGFMT_ESCAPE_IN_JSON],
  logfmt: [LOGFMT_ESCAPE],
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
  always: LineMarker[];
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
      ...(REWRITTEN_TEXT[format.id] ?? []),
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

/** Offsets in `chunk` where any marker occurs (and holds), at most one per marker per line. */
function markedOffsets(chunk: Buffer, markers: readonly LineMarker[]): number[] {
  const hits: number[] = [];
  for (const { bytes, holds } of markers) {
    for (let hit = chunk.indexOf(bytes); hit >= 0;) {
      if (holds && !holds(chunk, hit)) {
        hit = chunk.indexOf(bytes, hit + 1);
        continue;
      }
      hits.push(hit);
      const newline = chunk.indexOf(10, hit);
      if (newline < 0) break;
      hit = chunk.indexOf(bytes, newline + 1);
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
 * match. Null when a record's first line or its end is more than MAX_JOINED_LINES lines away from a hit:
 * feed the chunk whole then (the reader decides). `startsRecord` must tell the lines the reader starts a
 * record at: not a continuation, and read as a record (an unreadable line does not end the record before it).
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
  /**
   * Where the record whose first line is at `from` ends: the next record's first line, or the chunk's
   * end; null past MAX_JOINED_LINES lines (the reader counts only the lines it joins, so it may go on).
   */
  const recordEnd = (from: number): number | null => {
    let at = lineEnd(from) + 1;
    for (let walked = 0; at < end && !isStart(at); walked += 1) {
      if (walked >= MAX_JOINED_LINES) return null;
      at = lineEnd(at) + 1;
    }
    return Math.min(at, end);
  };
  const around = (at: number): [number, number] | null => {
    const from = recordStart(lineStartOf(at));
    const to = from === null ? null : recordEnd(from);
    return from === null || to === null ? null : [from, to];
  };
  const spans: [number, number][] = [];
  if (!isStart(start)) {
    const to = recordEnd(start);
    if (to === null) return null;
    spans.push([start, to]);
  }
  const primary = filter.scanPrimaryInRecords(bytes, start, end);
  for (let at = start; at < end;) {
    const hit = primary.next(at);
    if (hit < 0) break;
    const record = around(hit);
    if (record === null) return null;
    if (filter.findEach.every((find) => find(bytes, record[0], record[1]) >= 0)) spans.push(record);
    at = Math.max(record[1], hit + 1);
  }
  // In order, each record once: a record of many marked lines (a stack trace of Windows paths) is walked
  // for its first, not for each (that walk was quadratic in the record's length).
  let covered = start;
  for (const at of markedOffsets(bytes.subarray(start, end), filter.always).sort((a, b) => a - b)) {
    if (start + at < covered) continue;
    const record = around(start + at);
    if (record === null) return null;
    spans.push(record);
    covered = record[1];
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
