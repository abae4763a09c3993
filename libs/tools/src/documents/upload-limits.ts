import { BadRequestException, HttpException, PayloadTooLargeException } from '@nestjs/common';

/** The busboy limits of a runbook upload: one file, the few documented fields, short values. */
export interface UploadLimits {
  fileSize: number;
  files: number;
  fields: number;
  fieldNameSize: number;
  fieldSize: number;
  parts: number;
  headerPairs: number;
}

export function uploadLimits(maxBytes: number): UploadLimits {
  return {
    fileSize: maxBytes,
    files: 1,
    fields: 3,
    fieldNameSize: 32,
    fieldSize: 1024,
    parts: 4,
    headerPairs: 20,
  };
}

/**
 * What each multer limit error (as `FileInterceptor` hands it on: multer's message, then ` - field`
 * when multer names one) means for a runbook upload, naming the limit and where it is set.
 */
const LIMIT_MESSAGES: Record<string, (limits: UploadLimits) => string> = {
  'File too large': (l) => `the file is larger than ${l.fileSize} bytes (DOCUMENTS_MAX_BYTES)`,
  'Too many files': (l) => `at most ${l.files} file per upload, in multipart field 'file' (fixed limit)`,
  'Unexpected file field': () => "a file is accepted only in multipart field 'file' (fixed limit)",
  'Too many fields': (l) =>
    `at most ${l.fields} form fields besides the file: title, category, fault_source (fixed limit)`,
  'Too many parts': (l) =>
    `at most ${l.parts} multipart parts: the file and ${l.fields} fields (fixed limit)`,
  'Field name too long': (l) => `a field name is longer than ${l.fieldNameSize} bytes (fixed limit)`,
  'Field value too long': (l) => `a field value is longer than ${l.fieldSize} bytes (fixed limit)`,
};

/**
 * The same exception with a message that names the limit, for multer's limit errors; anything else
 * (our own messages, validation, busboy's malformed-body errors) is returned unchanged.
 */
export function describeUploadLimit(error: unknown, limits: UploadLimits): unknown {
  if (!(error instanceof BadRequestException || error instanceof PayloadTooLargeException)) return error;
  const message = messageOf(error);
  if (message === undefined) return error;
  const separator = message.indexOf(' - ');
  const multerMessage = separator === -1 ? message : message.slice(0, separator);
  const field = separator === -1 ? undefined : message.slice(separator + 3);
  const describe = Object.hasOwn(LIMIT_MESSAGES, multerMessage) ? LIMIT_MESSAGES[multerMessage] : undefined;
  if (!describe) return error;
  const detail = `${multerMessage}: ${describe(limits)}${field ? ` (field '${field.slice(0, 64)}')` : ''}`;
  return error instanceof PayloadTooLargeException
    ? new PayloadTooLargeException(detail)
    : new BadRequestException(detail);
}

function messageOf(error: HttpException): string | undefined {
  const response = error.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  return typeof message === 'string' ? message : undefined;
}
