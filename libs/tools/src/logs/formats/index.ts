export * from './log-format';
export { detectFormat, formatById, LOG_FORMATS, MAX_JOINED_LINES, RecordReader } from './log-format-registry';
export type { FormatDetection, ReadStep } from './log-format-registry';
export { DEFAULT_JSON_FIELDS } from './json.format';
export { isValidTimeZone, timestampOf } from './timestamps';
export { levelOf } from './levels';
