import type { ToolProjection } from '@app/harness';
import { clip, isSensitiveField, REDACTED, redactText } from '../projection/redaction';

/** What the executor hands back: the canonical raw response stored in Redis. */
export interface MysqlRawResponse {
  data_source: string;
  sql: string;
  params: unknown[];
  columns: string[];
  rows: Record<string, unknown>[];
  /** Set when the result passed the read cap: the statement was killed and only the rows so far kept. */
  truncated_at_bytes?: number;
}

export interface MysqlProjectionLimits {
  maxRows: number;
  maxCellChars: number;
  maxTotalBytes: number;
}

type Cell = string | number | boolean | null;

/** Binary cells arrive base64-encoded in the raw response; the agent only learns their size. */
export interface BinaryCell {
  binary_base64: string;
}

function isBinary(value: unknown): value is BinaryCell {
  return (
    typeof value === 'object' && value !== null && typeof (value as BinaryCell).binary_base64 === 'string'
  );
}

function projectCell(column: string, value: unknown, maxChars: number): { cell: Cell; clipped: boolean } {
  if (value === null || value === undefined) return { cell: null, clipped: false };
  if (isSensitiveField(column)) return { cell: REDACTED, clipped: false };
  if (typeof value === 'number' || typeof value === 'boolean') return { cell: value, clipped: false };
  if (isBinary(value)) {
    return { cell: `[binary ${Buffer.from(value.binary_base64, 'base64').length} bytes]`, clipped: true };
  }
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const { text: cut, clipped } = clip(redactText(text), maxChars);
  return { cell: cut, clipped };
}

/**
 * MysqlResultProjector: columns and row objects, bounded by rows, cell length and total
 * bytes; sensitive columns redacted by name and sensitive values by pattern; deterministic, no LLM.
 */
export function projectMysqlResult(raw: MysqlRawResponse, limits: MysqlProjectionLimits): ToolProjection {
  let truncated = raw.rows.length > limits.maxRows || raw.truncated_at_bytes !== undefined;
  const rows: Record<string, Cell>[] = [];
  let bytes = 0;
  for (const source of raw.rows.slice(0, limits.maxRows)) {
    const row: Record<string, Cell> = {};
    for (const column of raw.columns) {
      const { cell, clipped } = projectCell(column, source[column], limits.maxCellChars);
      row[column] = cell;
      truncated ||= clipped;
    }
    const size = Buffer.byteLength(JSON.stringify(row), 'utf8');
    if (bytes + size > limits.maxTotalBytes) {
      truncated = true;
      break;
    }
    bytes += size;
    rows.push(row);
  }
  return {
    evidenceStatus: raw.rows.length > 0 ? 'EVIDENCE_FOUND' : 'NO_EVIDENCE',
    result: {
      source_kind: 'MYSQL',
      scope: {
        data_source: raw.data_source,
        sql: raw.sql,
        params: raw.params.map((param) => (typeof param === 'string' ? redactText(param) : param)),
      },
      columns: raw.columns,
      rows,
      returned_count: rows.length,
    },
    truncated,
  };
}
