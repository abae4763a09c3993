import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEFAULT_JSON_FIELDS,
  detectFormat,
  LogRecord,
  ParseContext,
  RecordReader,
  UnreadableReason,
} from '../../libs/tools/src/logs/formats';

export const LOG_FIXTURES = join(__dirname, '..', 'fixtures', 'logs');

/** A parse context as the FILE source builds one: UTC unless told, the fixture's reference time. */
export function contextOf(overrides: Partial<ParseContext> = {}): ParseContext {
  return {
    timeZone: 'UTC',
    referenceTime: Date.parse('2026-12-05T12:00:00Z'),
    fields: DEFAULT_JSON_FIELDS,
    ...overrides,
  };
}

/** A fixture file's non-empty lines. */
export function fixtureLines(path: string): string[] {
  return readFileSync(join(LOG_FIXTURES, path), 'utf8')
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '');
}

/** A fixture read as the source reads it: detected format, records, unreadable reasons. */
export function readFixture(
  path: string,
  overrides: Partial<ParseContext> = {},
): { format: string | null; records: LogRecord[]; unreadable: UnreadableReason[] } {
  const context = contextOf(overrides);
  const lines = fixtureLines(path);
  const { format } = detectFormat(lines, context);
  if (!format) return { format: null, records: [], unreadable: [] };
  const reader = new RecordReader(format, context);
  const records: LogRecord[] = [];
  const unreadable: UnreadableReason[] = [];
  for (const step of [...lines.flatMap((line) => reader.push(line)), ...reader.end()]) {
    if (step.kind === 'record') records.push(step.record);
    if (step.kind === 'unreadable') unreadable.push(step.reason);
  }
  return { format: format.id, records, unreadable };
}

/** The comparable part of a record: ISO time, level, service, and the message cut to the expected one's length. */
export function summary(record: LogRecord, expected: readonly unknown[] | number = 40) {
  const chars = typeof expected === 'number' ? expected : String(expected[3]).length;
  return [new Date(record.at).toISOString(), record.level, record.service, record.message.slice(0, chars)];
}
