import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { Observable } from 'rxjs';
import { toolsConfig, ToolsConfig } from '../config/tools.config';
import { describeUploadLimit, UploadLimits, uploadLimits } from './upload-limits';

/**
 * `FileInterceptor('file')` under the upload limits, whose limit errors name the limit and its setting:
 * multer raises them while parsing the body, before DocumentsService sees the request.
 */
@Injectable()
export class DocumentFileInterceptor implements NestInterceptor {
  private readonly files: NestInterceptor;
  private readonly limits: UploadLimits;

  constructor(@Inject(toolsConfig.KEY) config: ToolsConfig) {
    this.limits = uploadLimits(config.documents.maxBytes);
    const Files = FileInterceptor('file', documentUploadOptions(config));
    this.files = new Files();
  }

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    try {
      return await this.files.intercept(context, next);
    } catch (error) {
      throw describeUploadLimit(error, this.limits);
    }
  }
}

/** Multer options for runbook uploads: bounds busboy before anything is buffered. */
export function documentUploadOptions(config: ToolsConfig) {
  return {
    // Browsers send a non-ASCII file name as raw UTF-8 in `filename="…"`; busboy's default reads
    // those bytes as latin1, which turned Chinese names into mojibake and then underscores.
    defParamCharset: 'utf8',
    limits: uploadLimits(config.documents.maxBytes),
  };
}
