import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

/** Longest line read by default: longer lines are skipped and counted, never buffered whole. */
export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;
/** Bytes per read: large enough that the wait between reads is small beside the work on each. */
const CHUNK_BYTES = 4 * 1024 * 1024;
/** Room a buffer has for the unfinished line carried in front of a read; a longer one grows one buffer. */
const CARRY_BYTES = 64 * 1024;

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
  /** Checked before every read and before waiting for one: true stops reading. */
  stopped?: () => boolean;
  /** Bytes per read (default 4 MiB); specs make it small to cross many chunk boundaries. */
  chunkBytes?: number;
}

/**
 * Reads a file in chunks of whole lines without decoding them, so a caller can reject lines by their
 * bytes before any parse. A line longer than `maxLineBytes` is skipped (reported as `long`), so no input
 * line can grow a string past what the process can hold. The next read is under way while the caller
 * works through a chunk (two buffers take turns), so a scan costs about the longer of reading and
 * searching, not their sum; while a line longer than the spare buffer's room is read, one buffer grows
 * with it and reads wait for the caller, so a long line costs one buffer, not two. A chunk's buffer is
 * reused: consume each chunk before asking for the next.
 */
export async function* readLineChunks(
  path: string,
  options: LineReadOptions,
): AsyncGenerator<LineChunk | LongLine> {
  const { maxLineBytes } = options;
  const chunkBytes = options.chunkBytes ?? CHUNK_BYTES;
  const carryRoom = Math.min(CARRY_BYTES, chunkBytes);
  // A buffer grows only while a line is longer than a chunk, up to what the cap needs.
  const largest = maxLineBytes + chunkBytes + 1;
  const end = options.to ?? Infinity;
  const file = await open(path, 'r');
  let position = options.from ?? 0;
  let reading: Promise<Read> | null = null;
  /** Starts reading the next chunk into `buffer` behind the `carry` bytes `source[at, at + carry)`. */
  const readBehind = (buffer: Buffer, source: Buffer | null, at: number, carry: number): Buffer => {
    if (carry + chunkBytes > buffer.length && buffer.length < largest) {
      buffer = Buffer.allocUnsafe(Math.min(largest, Math.max(2 * buffer.length, carry + chunkBytes)));
    }
    if (source) source.copy(buffer, 0, at, at + carry);
    const want = Math.min(chunkBytes, buffer.length - carry, end - position);
    reading = want > 0 ? readInto(file, buffer, carry, want, position) : Promise.resolve({ bytesRead: 0 });
    return buffer;
  };
  try {
    if (options.stopped?.()) return;
    let buffer: Buffer = readBehind(Buffer.allocUnsafe(chunkBytes + carryRoom), null, 0, 0);
    let spare: Buffer = Buffer.allocUnsafe(chunkBytes + carryRoom);
    let carry = 0;
    let skipping = false;
    for (;;) {
      const read: Read = await reading!;
      reading = null;
      if ('error' in read) throw read.error;
      if (read.bytesRead === 0) {
        if (carry > 0 && !skipping) yield* linesOf(buffer, 0, carry, maxLineBytes, position - carry);
        return;
      }
      position += read.bytesRead;
      const filled = carry + read.bytesRead;
      // [begin, whole): the chunk's whole lines; the rest is the start of a line the next chunk ends.
      let begin = 0;
      if (skipping) {
        const newline = buffer.subarray(0, filled).indexOf(10);
        if (newline < 0) begin = filled;
        else [begin, skipping] = [newline + 1, false];
      }
      const last = buffer.lastIndexOf(10, filled - 1);
      const whole = last >= begin ? last + 1 : begin;
      carry = filled - whole;
      let long: LongLine | null = null;
      if (carry > maxLineBytes) {
        long = { kind: 'long', offset: position - carry };
        [skipping, carry] = [true, 0];
      }
      const offset = position - filled;
      if (options.stopped?.()) {
        if (whole > begin) yield* linesOf(buffer, begin, whole, maxLineBytes, offset);
        return;
      }
      if (carry <= carryRoom) {
        // The unfinished line moves to the other buffer, which the next read fills behind it meanwhile.
        const chunk = buffer;
        buffer = readBehind(spare, chunk, whole, carry);
        spare = chunk;
        if (whole > begin) yield* linesOf(chunk, begin, whole, maxLineBytes, offset);
      } else {
        // A long line: its bytes stay in this buffer (moved to its start), read once its lines are consumed.
        if (whole > begin) yield* linesOf(buffer, begin, whole, maxLineBytes, offset);
        if (options.stopped?.()) return;
        buffer = readBehind(buffer, buffer, whole, carry);
      }
      if (long) yield long;
      if (options.stopped?.()) return;
    }
  } finally {
    // A read still under way writes into a buffer through the descriptor: it ends before the file closes.
    await reading;
    await file.close();
  }
}

/** A read's outcome, never a rejection: a read may fail while the caller is busy with the previous chunk. */
type Read = { bytesRead: number } | { error: unknown };

function readInto(file: FileHandle, buffer: Buffer, offset: number, length: number, position: number) {
  return file.read(buffer, offset, length, position).then(
    ({ bytesRead }): Read => ({ bytesRead }),
    (error: unknown): Read => ({ error }),
  );
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
