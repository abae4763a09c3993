/** Each byte with ASCII upper-case letters folded to lower case; every other byte unchanged. */
const FOLD = Uint8Array.from({ length: 256 }, (_, byte) => (byte >= 65 && byte <= 90 ? byte + 32 : byte));

/** Finds a needle in `bytes[from, to)`: the offset of its first byte, or -1. */
export type ByteSearch = (bytes: Uint8Array, from: number, to: number) => number;

/**
 * An ASCII case-insensitive search for `needle` over raw bytes, without decoding or copying them:
 * Boyer-Moore-Horspool over case-folded bytes, so a chunk costs about one byte read per shift (a few
 * per needle length) instead of a decoded string and a regular expression per chunk. Only ASCII letters
 * fold; every other byte (UTF-8 included) must be equal.
 */
export function asciiCaseSearch(needle: string): ByteSearch {
  const folded = Uint8Array.from(Buffer.from(needle, 'utf8'), (byte) => FOLD[byte]);
  const length = folded.length;
  if (length === 0) return (_bytes, from, to) => (from <= to ? from : -1);
  const last = folded[length - 1];
  // How far the window may move when its last byte is this one; 0 for the needle's last byte (then compare).
  const shift = new Int32Array(256).fill(length);
  for (let i = 0; i < length - 1; i += 1) setFolded(shift, folded[i], length - 1 - i);
  setFolded(shift, last, 0);
  // After a compare at a last byte: the next place the last byte can line up with an earlier equal byte.
  let afterCompare = length;
  for (let i = 0; i < length - 1; i += 1) if (folded[i] === last) afterCompare = length - 1 - i;
  return (bytes, from, to) => {
    let at = from + length - 1;
    for (;;) {
      let step = 0;
      while (at < to && (step = shift[bytes[at]]) !== 0) at += step;
      if (at >= to) return -1;
      const start = at - length + 1;
      let i = 0;
      while (i < length - 1 && FOLD[bytes[start + i]] === folded[i]) i += 1;
      if (i === length - 1) return start;
      at += afterCompare;
    }
  };
}

/** Sets a shift for a folded byte and, for a letter, its upper case too. */
function setFolded(shift: Int32Array, byte: number, value: number): void {
  shift[byte] = value;
  if (byte >= 97 && byte <= 122) shift[byte - 32] = value;
}

/**
 * Letters from the most to the least common in English text; digits, which timestamps and ids make
 * about the most common bytes of a log, rank with the first. Used only to pick an anchor byte.
 */
const LETTERS_BY_FREQUENCY = 'etaoinsrhldcumfpgwybvkxjqz';

/** How common a byte of a needle is likely to be in log text: higher is rarer. */
export function rarityOf(byte: number): number {
  const folded = FOLD[byte];
  const letter = LETTERS_BY_FREQUENCY.indexOf(String.fromCharCode(folded));
  if (folded >= 97 && folded <= 122) return letter;
  if (folded >= 48 && folded <= 57) return 0;
  // `_` and punctuation are rarer than the common letters; bytes outside ASCII rarer still.
  return folded < 128 ? 8 : LETTERS_BY_FREQUENCY.length;
}

/** Index of the needle byte to look for first: the rarest by `rarityOf`, the last of equals. */
export function anchorOf(needle: Uint8Array): number {
  let best = 0;
  for (let i = 1; i < needle.length; i += 1) if (rarityOf(needle[i]) >= rarityOf(needle[best])) best = i;
  return best;
}

/** Successive hits over one range: `next(from)` is the first hit starting at or after `from`, or -1. */
export interface ByteScan {
  next(from: number): number;
}

/** Anchor candidates that fail before the scan turns to the skip search: at least this many ... */
const MIN_FALSE_ANCHORS = 16;
/**
 * ... and more than one per this many bytes scanned since the anchors (re)started. Measured on this
 * machine: a failed anchor costs about 20-90 ns, the skip search about 0.35-0.5 ns a byte, so anchors
 * pay off up to about one per 100-200 bytes; 256 keeps a margin.
 */
const BYTES_PER_FALSE_ANCHOR = 256;
/**
 * How far the skip search goes before the anchors are tried again (to the next line start after it):
 * an anchor byte common in one stretch of a file (an id's digit in a run of lines) costs the skip
 * search only there, not for the rest of a chunk.
 */
const SKIP_STRETCH_BYTES = 256 * 1024;

/**
 * Hits of an ASCII case-insensitive needle over `bytes[from, to)`, found as a fast grep does: its rarest
 * byte (both cases) is looked for with native memchr (`Buffer.indexOf` of a byte), each candidate then
 * compared in place. Where the anchor byte turns out common (many candidates that are no hit), the next
 * stretch of about SKIP_STRETCH_BYTES, up to a line start, is searched with `skipSearch` instead (by
 * default the skip search for the same needle; a caller that needs every needle of a set may pass a
 * longer one's, which skips further), then the anchors are tried again; so a range costs at most a
 * little more than that search alone. A hit is one of either needle. Both switches happen where no
 * line is split between the needles: the skip search starts where the call did (a line start for the
 * line scanners) and ends at a line start, and needles hold no line break.
 */
export function asciiCaseScan(
  needle: string,
  skipSearch: ByteSearch = asciiCaseSearch(needle),
): (bytes: Buffer, from: number, to: number) => ByteScan {
  const folded = Uint8Array.from(Buffer.from(needle, 'utf8'), (byte) => FOLD[byte]);
  const length = folded.length;
  const anchor = anchorOf(folded);
  const lower = folded[anchor];
  const upper = lower >= 97 && lower <= 122 ? lower - 32 : -1;
  const matchesAt = (bytes: Buffer, start: number) => {
    let i = 0;
    while (i < length && FOLD[bytes[start + i]] === folded[i]) i += 1;
    return i === length;
  };
  return (bytes, from, to) => {
    if (length === 0) return { next: (at) => (at <= to ? at : -1) };
    // Bounded to the range, so a byte searched for is never looked for past it.
    const range = bytes.subarray(0, to);
    // The next anchor byte of each case at or after where it was last looked for.
    let nextLower = -1;
    let nextUpper = upper < 0 ? Infinity : -1;
    let falseAnchors = 0;
    let anchorsFrom = from;
    // While skipping, the skip search runs instead of the anchors up to `skipUntil` (a line start or `to`).
    let skipping = false;
    let skipUntil = from;
    const nextOf = (byte: number, known: number, min: number) => {
      if (known >= min) return known;
      const found = range.indexOf(byte, min);
      return found < 0 ? Infinity : found;
    };
    const lineStartAfter = (at: number) => {
      if (at >= to) return to;
      const newline = range.indexOf(10, at);
      return newline < 0 ? to : newline + 1;
    };
    return {
      next(at) {
        // The skip search may look for another needle: it starts where this call did, not where the
        // anchors stopped, or a hit of its needle before that point (in the same line) would be lost.
        const called = at;
        for (;;) {
          if (skipping) {
            const hit = at < skipUntil ? skipSearch(bytes, at, skipUntil) : -1;
            if (hit >= 0) return hit;
            skipping = false;
            falseAnchors = 0;
            anchorsFrom = at = Math.max(at, skipUntil);
          }
          if (at >= to) return -1;
          const min = at + anchor;
          nextLower = nextOf(lower, nextLower, min);
          nextUpper = nextOf(upper, nextUpper, min);
          const candidate = Math.min(nextLower, nextUpper);
          const start = candidate - anchor;
          if (candidate === Infinity || start + length > to) return -1;
          if (matchesAt(bytes, start)) return start;
          falseAnchors += 1;
          at = start + 1;
          if (falseAnchors >= MIN_FALSE_ANCHORS && falseAnchors * BYTES_PER_FALSE_ANCHOR > at - anchorsFrom) {
            skipping = true;
            skipUntil = lineStartAfter(at + SKIP_STRETCH_BYTES);
            // Before anchorsFrom the skip search already found nothing.
            at = Math.max(called, anchorsFrom);
          }
        }
      },
    };
  };
}
