import { ArgumentMetadata, ValidationPipe, ValidationPipeOptions } from '@nestjs/common';

export const VALIDATION_OPTIONS: ValidationPipeOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  transform: true,
};

/** A body DTO class that builds itself from a plain valid body, or answers null (ChatRequestDto). */
interface PlainBodyType {
  ofPlainBody(body: unknown): object | null;
}

/**
 * The global validation pipe. A body whose DTO class has a static `ofPlainBody` that accepts it skips
 * class-transformer and class-validator (the chat endpoint, ~100 µs a request while a burst is taken
 * in); every other body, and every refusal with its messages, goes through ValidationPipe as before.
 */
export class RequestValidationPipe extends ValidationPipe {
  constructor() {
    super(VALIDATION_OPTIONS);
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const type =
      metadata.type === 'body' ? (metadata.metatype as Partial<PlainBodyType> | undefined) : undefined;
    return type?.ofPlainBody?.(value) ?? super.transform(value, metadata);
  }
}
