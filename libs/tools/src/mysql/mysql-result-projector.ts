import type { ToolProjection } from '@app/harness';
import { clip, isSensitiveField, REDACTED, redactText } from '../projection/redaction';

/** What the executor hands back: the canonical raw response stored in Redis. */
export interface MysqlRawResponse {
  data_source: string;
  sql: string;
  params: unknown[];
  columns: string[];
  rows: Record<string, unknown>[];
  /** Result columns that read a hidden column (see sql-policy.ts): their values are never projected. */
  hidden_columns?: string[];
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

function projectCell(value: unknown, hidden: boolean, maxChars: number): { cell: Cell; clipped: boolean } {
  if (value === null || value === undefined) return { cell: null, clipped: false };
  if (hidden) return { cell: REDACTED, clipped: false };
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
 * bytes; hidden columns (as the SQL policy read them from the allowlist's column rules) and sensitive
 * values (by pattern) redacted; deterministic, no LLM.
 */
export function projectMysqlResult(raw: MysqlRawResponse, limits: MysqlProjectionLimits): ToolProjection {
  // A response without the policy's reading (none is produced so) is hidden by the name rule alone.
  const hidden = new Set(raw.hidden_columns ?? raw.columns.filter((column) => isSensitiveField(column)));
  let truncated = raw.rows.length > limits.maxRows || raw.truncated_at_bytes !== undefined;
  const rows: Record<string, Cell>[] = [];
  let bytes = 0;
  for (const source of raw.rows.slice(0, limits.maxRows)) {
    const row: Record<string, Cell> = {};
    for (const column of raw.columns) {
      const { cell, clipped } = projectCell(source[column], hidden.has(column), limits.maxCellChars);
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
      ...(hidden.size > 0 ? { hidden_columns: raw.columns.filter((column) => hidden.has(column)) } : {}),
      rows,
      returned_count: rows.length,
    },
    truncated,
  };
}
