import { ValueTransformer } from 'typeorm';

/** DATETIME(3) columns are written and read as UTC (the DataSource uses timezone 'Z'). */
export const MILLIS = { type: 'datetime', precision: 3 } as const;
export const NOW_MILLIS = () => 'CURRENT_TIMESTAMP(3)';

/** BIGINT ids come back from mysql2 as strings; keep them as strings rather than lose precision. */
export const BIGINT_ID = { type: 'bigint', unsigned: true } as const;

/** MariaDB stores JSON as LONGTEXT; parse defensively so both MariaDB and MySQL 8 yield objects. */
export const jsonTransformer: ValueTransformer = {
  to: (value: unknown) => value,
  from: (value: unknown) => (typeof value === 'string' ? (JSON.parse(value) as unknown) : value),
};
