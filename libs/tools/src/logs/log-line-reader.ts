import { open } from 'node:fs/promises';

/** Longest line read by default: longer lines are skipped and counted, never buffered whole. */
export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;
const CHUNK_BYTES = 1024 * 1024;

/** Whole lines of a file as bytes: `bytes[start, end)` (each line ends with `\n`, except a last line at EOF). */
export interface LineChunk {
  kind: 'lines';
  bytes: Buffer;
  start: number;
  end: number;
}

/** A line longer than the cap, skipped; `offset` is where it starts in the file. */
export interface LongLine {
  kind: 'long';
  offset: number;
}

export interface LineReadOptions {
  /** First byte to read (a line start) and the byte before which to stop (a line start, or the file size). */
  from?: number;
  to?: number;
  maxLineBytes: number;
  /** Checked before every read: true stops reading. */
  stopped?: () => boolean;
}

/**
 * Reads a file in chunks of whole lines without decoding them, so a caller can reject lines by their
 * bytes before any parse. A line longer than `maxLineBytes` is skipped (reported as `long`), so no input
 * line can grow a string past what the process can hold. The chunk buffer is reused: consume each chunk
 * before asking for the next.
 */
export async function* readLineChunks(
  path: string,
  options: LineReadOptions,
): AsyncGenerator<LineChunk | LongLine> {
  const { maxLineBytes } = options;
  const file = await open(path, 'r');
  try {
    // Grows only while a line is longer than the chunk, up to the cap.
    let buffer = Buffer.allocUnsafe(2 * CHUNK_BYTES);
    const largest = maxLineBytes + CHUNK_BYTES + 1;
    let position = options.from ?? 0;
    const to = options.to ?? Infinity;
    let carry = 0;
    let skipping = false;
    let skippedAt = 0;
    for (;;) {
      if (options.stopped?.()) return;
      if (carry + CHUNK_BYTES > buffer.length && buffer.length < largest) {
        const grown = Buffer.allocUnsafe(Math.min(largest, 2 * buffer.length));
        buffer.copy(grown, 0, 0, carry);
        buffer = grown;
      }
      const want = Math.min(CHUNK_BYTES, buffer.length - carry, to - position);
      const { bytesRead } = want > 0 ? await file.read(buffer, carry, want, position) : { bytesRead: 0 };
      if (bytesRead === 0) break;
      position += bytesRead;
      const filled = carry + bytesRead;
      let begin = 0;
      if (skipping) {
        const newline = buffer.indexOf(10, 0);
        if (newline < 0 || newline >= filled) {
          carry = 0;
          continue;
        }
        begin = newline + 1;
        skipping = false;
      }
      const last = buffer.lastIndexOf(10, filled - 1);
      if (last >= begin) {
        yield* linesOf(buffer, begin, last + 1, maxLineBytes, position - filled);
        buffer.copy(buffer, 0, last + 1, filled);
        carry = filled - last - 1;
      } else {
        if (begin > 0) buffer.copy(buffer, 0, begin, filled);
        carry = filled - begin;
      }
      if (carry > maxLineBytes) {
        skippedAt = position - carry;
        yield { kind: 'long', offset: skippedAt };
        skipping = true;
        carry = 0;
      }
    }
    if (carry > 0 && !skipping) yield* linesOf(buffer, 0, carry, maxLineBytes, position - carry);
  } finally {
    await file.close();
  }
}

/**
 * A chunk, with any line in it over the cap reported and left out (the chunk is split around it). It
 * jumps from newline to newline at most the cap apart, so a chunk of short lines costs a few searches.
 */
function* linesOf(
  buffer: Buffer,
  start: number,
  end: number,
  maxLineBytes: number,
  offset: number,
): Generator<LineChunk | LongLine> {
  let from = start;
  let at = start;
  while (end - at > maxLineBytes) {
    const newline = buffer.lastIndexOf(10, at + maxLineBytes);
    if (newline >= at) {
      at = newline + 1;
      continue;
    }
    // No line break within the cap from `at`: the line starting there is too long.
    if (at > from) yield { kind: 'lines', bytes: buffer, start: from, end: at };
    yield { kind: 'long', offset: offset + at };
    const next = buffer.indexOf(10, at);
    at = next < 0 || next >= end ? end : next + 1;
    from = at;
  }
  if (end > from) yield { kind: 'lines', bytes: buffer, start: from, end };
}

/** Each line of a chunk as [start, end) without its line break (and a `\r` before it). */
export function* lineBounds(bytes: Buffer, start: number, end: number): Generator<[number, number]> {
  let at = start;
  while (at < end) {
    let newline = bytes.indexOf(10, at);
    if (newline < 0 || newline >= end) newline = end;
    const stop = newline > at && bytes[newline - 1] === 13 ? newline - 1 : newline;
    yield [at, stop];
    at = newline + 1;
  }
}

/** Every line of a file as text, lines over the cap skipped and counted (`onLong`). */
export async function* readTextLines(
  path: string,
  options: LineReadOptions & { onLong?: (offset: number) => void },
): AsyncGenerator<string> {
  for await (const chunk of readLineChunks(path, options)) {
    if (chunk.kind === 'long') {
      options.onLong?.(chunk.offset);
      continue;
    }
    for (const [start, end] of lineBounds(chunk.bytes, chunk.start, chunk.end)) {
      yield chunk.bytes.toString('utf8', start, end);
    }
  }
}
