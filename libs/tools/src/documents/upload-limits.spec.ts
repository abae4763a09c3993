import { BadRequestException, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { describeUploadLimit, uploadLimits } from './upload-limits';

const limits = uploadLimits(1048576);
const messageOf = (error: unknown) =>
  ((error as BadRequestException).getResponse() as { message: string }).message;

describe('describeUploadLimit', () => {
  it.each([
    [
      'the file size',
      new PayloadTooLargeException('File too large'),
      413,
      'File too large: the file is larger than 1048576 bytes (DOCUMENTS_MAX_BYTES)',
    ],
    [
      'the field count',
      new BadRequestException('Too many fields'),
      400,
      'Too many fields: at most 3 form fields besides the file: title, category, fault_source (fixed limit)',
    ],
    [
      'the file count, with the field multer names',
      new BadRequestException('Too many files - file'),
      400,
      "Too many files: at most 1 file per upload, in multipart field 'file' (fixed limit) (field 'file')",
    ],
    [
      'the part count',
      new BadRequestException('Too many parts'),
      400,
      'Too many parts: at most 4 multipart parts: the file and 3 fields (fixed limit)',
    ],
    [
      'a field value',
      new BadRequestException('Field value too long - title'),
      400,
      "Field value too long: a field value is longer than 1024 bytes (fixed limit) (field 'title')",
    ],
    [
      'a field name',
      new BadRequestException('Field name too long'),
      400,
      'Field name too long: a field name is longer than 32 bytes (fixed limit)',
    ],
    [
      'a file in another field',
      new BadRequestException('Unexpected file field - attachment'),
      400,
      "Unexpected file field: a file is accepted only in multipart field 'file' (fixed limit) (field 'attachment')",
    ],
  ])('names %s', (_case, error, status, message) => {
    const described = describeUploadLimit(error, limits) as BadRequestException;
    expect(described.getStatus()).toBe(status);
    expect(messageOf(described)).toBe(message);
  });

  it.each([
    ['our own 413', new PayloadTooLargeException('the file is larger than 8 bytes')],
    ['our own 400', new BadRequestException('the file is empty')],
    ['a validation error (message list)', new BadRequestException(['title must be a string'])],
    ['a malformed body', new BadRequestException('Multipart: Unexpected end of form')],
    ['another status with a limit message', new NotFoundException('Too many fields')],
    ['an inherited property name', new BadRequestException('toString')],
    ['not an HttpException', new Error('File too large')],
  ])('leaves %s unchanged', (_case, error) => {
    expect(describeUploadLimit(error, limits)).toBe(error);
  });
});
