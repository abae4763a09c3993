import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { isRecord, LogFormat, ParseContext } from './formats';
import { lineBounds } from './log-line-reader';

/**
 * Records may be written a little out of order (threads, buffered appenders): reading starts this much
 * before the window and stops this much after it, and a file counts as time-ordered within it.
 */
export const TIME_SLACK_MS = 5 * 60_000;
/** Below this span the offset search stops and reading starts (a few reads are cheaper than more seeks). */
const MIN_SPAN = 256 * 1024;
/** Bytes read at a probe to find the next record; a probe finding none there knows nothing. */
const PROBE_BYTES = 256 * 1024;
/** Probes spread over a file to tell whether it is time-ordered. */
const ORDER_PROBES = 16;

/** A record starting at or after an offset: where its line starts and its time. */
export interface Probe {
  offset: number;
  at: number;
}
export type ProbeAt = (offset: number) => Promise<Probe | null>;

/**
 * Where to start reading a time-ordered file so that no record at or after `at` is missed: a record's
 * line start (or 0) before which every record is earlier than `at`. Binary search over byte offsets; a
 * probe that finds no record keeps the start where it is (reading more, never less).
 */
export async function startOffsetOf(size: number, at: number, probe: ProbeAt): Promise<number> {
  let lo = 0;
  let hi = size;
  while (hi - lo > MIN_SPAN) {
    const mid = lo + Math.floor((hi - lo) / 2);
    const found = await probe(mid);
    if (found && found.offset < hi && found.at < at) lo = found.offset;
    else hi = mid;
  }
  return lo;
}

/**
 * Where to stop reading a time-ordered file: a record's line start (or the size) at or after which every
 * record is later than `at`. A probe that finds no record moves the end later (reading more, never less).
 */
export async function endOffsetOf(size: number, from: number, at: number, probe: ProbeAt): Promise<number> {
  let lo = from;
  let hi = size;
  while (hi - lo > MIN_SPAN) {
    const mid = lo + Math.floor((hi - lo) / 2);
    const found = await probe(mid);
    if (found && found.offset < hi && found.at > at) hi = found.offset;
    else lo = found && found.offset < hi ? Math.max(mid, found.offset + 1) : mid;
  }
  return hi;
}

/** The first record starting at or after `offset` (at a line start: the line broken by `offset` is skipped). */
export async function probeFile(
  file: FileHandle,
  format: LogFormat,
  context: ParseContext,
  offset: number,
): Promise<Probe | null> {
  const buffer = Buffer.allocUnsafe(PROBE_BYTES);
  const { bytesRead } = await file.read(buffer, 0, PROBE_BYTES, offset);
  let start = 0;
  if (offset > 0) {
    // The byte before `offset` tells whether `offset` is already a line start.
    const before = Buffer.alloc(1);
    await file.read(before, 0, 1, offset - 1);
    if (before[0] !== 10) {
      const newline = buffer.indexOf(10);
      if (newline < 0 || newline >= bytesRead) return null;
      start = newline + 1;
    }
  }
  // Only whole lines: the last line of the read may be cut.
  const last = bytesRead < PROBE_BYTES ? bytesRead : buffer.lastIndexOf(10, bytesRead - 1) + 1;
  for (const [from, to] of lineBounds(buffer, start, last)) {
    const line = buffer.toString('utf8', from, to);
    if (line.trim() === '' || (format.continuation?.(line) ?? null) !== null) continue;
    const read = format.parse(line, context);
    if (isRecord(read)) return { offset: offset + from, at: read.at };
  }
  return null;
}

/** The last record of a file (searched backwards in its last PROBE_BYTES), or null. */
async function lastRecordOf(
  file: FileHandle,
  format: LogFormat,
  context: ParseContext,
  size: number,
): Promise<Probe | null> {
  const offset = Math.max(0, size - PROBE_BYTES);
  const buffer = Buffer.allocUnsafe(size - offset);
  const { bytesRead } = await file.read(buffer, 0, buffer.length, offset);
  const first = offset === 0 ? 0 : buffer.indexOf(10) + 1;
  if (first <= 0 && offset > 0) return null;
  const lines = [...lineBounds(buffer, first, bytesRead)];
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const line = buffer.toString('utf8', lines[i][0], lines[i][1]);
    if (line.trim() === '' || (format.continuation?.(line) ?? null) !== null) continue;
    const read = format.parse(line, context);
    if (isRecord(read)) return { offset: offset + lines[i][0], at: read.at };
  }
  return null;
}

/** What a file's timestamps say about where a window is in it (cached per path, size and mtime). */
export interface FileTimeIndex {
  /** First and last record times, null when none could be read at the ends. */
  first: number | null;
  last: number | null;
  /** Probes over the whole file read in time order (within TIME_SLACK_MS): offsets can be searched. */
  ordered: boolean;
}

const indexCache = new Map<string, FileTimeIndex>();

export interface IndexedFile {
  path: string;
  format: LogFormat;
  context: ParseContext;
  size: number;
  modified: number;
}

/** Whether probes at evenly spaced offsets are in time order (within the slack). */
async function isOrdered(size: number, probe: ProbeAt, last: Probe | null): Promise<boolean> {
  let previous = -Infinity;
  for (let i = 0; i <= ORDER_PROBES; i += 1) {
    const found = await probe(Math.floor((size * i) / (ORDER_PROBES + 1)));
    if (!found) return false;
    if (found.at < previous - TIME_SLACK_MS) return false;
    previous = Math.max(previous, found.at);
  }
  return last !== null && last.at >= previous - TIME_SLACK_MS;
}

/** The time index of a file: its first and last record and whether it is time-ordered. */
export async function timeIndexOf(plan: IndexedFile): Promise<FileTimeIndex> {
  const key = `${plan.path}|${plan.size}|${plan.modified}|${plan.format.id}|${plan.context.timeZone}`;
  const cached = indexCache.get(key);
  if (cached) return cached;
  const file = await open(plan.path, 'r');
  let index: FileTimeIndex;
  try {
    const probe: ProbeAt = (offset) => probeFile(file, plan.format, plan.context, offset);
    const first = await probe(0);
    const last = await lastRecordOf(file, plan.format, plan.context, plan.size);
    index = {
      first: first?.at ?? null,
      last: last?.at ?? null,
      ordered: first !== null && (await isOrdered(plan.size, probe, last)),
    };
  } finally {
    await file.close();
  }
  if (indexCache.size > 10_000) indexCache.clear();
  indexCache.set(key, index);
  return index;
}

/**
 * The bytes of a time-ordered file that hold the window (with the slack; `to` Infinity reads to the end,
 * so lines appended since the index was built are read), or the whole file.
 */
export async function byteRangeOf(
  plan: IndexedFile,
  index: FileTimeIndex,
  window: { from: number; to: number },
): Promise<{ from: number; to: number; skipped: boolean }> {
  const whole = { from: 0, to: Infinity, skipped: false };
  if (!index.ordered || index.first === null || index.last === null) return whole;
  if (index.last < window.from - TIME_SLACK_MS || index.first > window.to + TIME_SLACK_MS) {
    return { from: 0, to: 0, skipped: true };
  }
  const file = await open(plan.path, 'r');
  try {
    const probe: ProbeAt = (offset) => probeFile(file, plan.format, plan.context, offset);
    const from = await startOffsetOf(plan.size, window.from - TIME_SLACK_MS, probe);
    const to =
      index.last <= window.to + TIME_SLACK_MS
        ? Infinity
        : await endOffsetOf(plan.size, from, window.to + TIME_SLACK_MS, probe);
    return { from, to, skipped: false };
  } finally {
    await file.close();
  }
}
