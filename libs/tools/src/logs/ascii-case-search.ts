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
