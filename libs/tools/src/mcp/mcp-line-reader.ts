import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/** How much of each end of an oversized line is kept, to find the request id it answers. */
export const LINE_EDGE_BYTES = 512;

export interface LineSink {
  line(text: string): void;
  /** The line passed the cap: the rest of it is dropped; `head` is its first bytes. */
  overflowStarted(head: string): void;
  /** The oversized line ended: its first and last bytes and its full size. */
  overflowEnded(head: string, tail: string, bytes: number): void;
}

/**
 * Splits a byte stream into newline-delimited messages, each at most `maxLineBytes`. Linear in the
 * input (each chunk is scanned once; a line is joined once), and a line over the cap is not kept: only
 * its two ends, to attribute it, while the rest is skipped up to its newline. The stream stays usable.
 */
export class LineReader {
  private parts: Buffer[] = [];
  private size = 0;
  private overflowing = false;
  private head = '';
  private tail: Buffer = Buffer.alloc(0);

  constructor(
    private readonly maxLineBytes: number,
    private readonly sink: LineSink,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      this.take(chunk.subarray(start, newline === -1 ? chunk.length : newline));
      if (newline === -1) return;
      this.endLine();
      start = newline + 1;
    }
  }

  private take(segment: Buffer): void {
    if (segment.length === 0) return;
    if (!this.overflowing && this.size + segment.length <= this.maxLineBytes) {
      this.parts.push(segment);
      this.size += segment.length;
      return;
    }
    this.size += segment.length;
    if (!this.overflowing) {
      this.overflowing = true;
      const line = Buffer.concat([...this.parts, segment]);
      this.parts = [];
      this.head = line.subarray(0, LINE_EDGE_BYTES).toString('utf8');
      this.tail = Buffer.from(line.subarray(Math.max(0, line.length - LINE_EDGE_BYTES)));
      this.sink.overflowStarted(this.head);
      return;
    }
    const joined = Buffer.concat([this.tail, segment.subarray(-LINE_EDGE_BYTES)]);
    this.tail = joined.subarray(Math.max(0, joined.length - LINE_EDGE_BYTES));
  }

  private endLine(): void {
    if (this.overflowing) this.sink.overflowEnded(this.head, this.tail.toString('utf8'), this.size);
    else if (this.size > 0) {
      const text = Buffer.concat(this.parts, this.size).toString('utf8').replace(/\r$/, '');
      if (text.trim() !== '') this.sink.line(text);
    }
    this.parts = [];
    this.size = 0;
    this.overflowing = false;
    this.head = '';
    this.tail = Buffer.alloc(0);
  }
}

const ID_VALUE = String.raw`(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")`;
/** `{"id":…` or `{"jsonrpc":"2.0","id":…` at the start of a message. */
const LEADING_ID = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID_VALUE}`);
/** `…"id":…}` as the last member of the message. */
const TRAILING_ID = new RegExp(String.raw`"id"\s*:\s*${ID_VALUE}\s*\}\s*$`);

function idValue(text: string): RequestId {
  return text.startsWith('"') ? (JSON.parse(text) as string) : Number(text);
}

/**
 * The request id a JSON-RPC message that cannot be parsed whole most likely answers: a top-level `id`
 * as its first member (or right after `jsonrpc`), or as its last. Null when neither end says.
 */
export function requestIdIn(head: string, tail: string | null = null): RequestId | null {
  const leading = LEADING_ID.exec(head);
  if (leading) return idValue(leading[1]);
  const trailing = TRAILING_ID.exec(tail ?? head);
  return trailing ? idValue(trailing[1]) : null;
}
