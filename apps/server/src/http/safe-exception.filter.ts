import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { parsingErrorOf } from './request-parsing';

/**
 * The one place HTTP errors leave the service. HttpExceptions carry our own safe messages and pass
 * through; a request the body parser could not read is the client's 4xx; anything else becomes a plain 500, and the log gets the error's class only — never its
 * message, stack, SQL or payload.
 */
@Catch()
export class SafeExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<Response>();
    const request = http.getRequest<Request>();
    if (response.headersSent) {
      response.end();
      return;
    }
    const clientError = exception instanceof HttpException ? exception : parsingErrorOf(exception);
    if (clientError) {
      response.status(clientError.getStatus()).json(clientError.getResponse());
      return;
    }
    this.logger.error(
      `unhandled ${exception instanceof Error ? exception.name : typeof exception} on ${request.method} ${request.path}`,
    );
    response
      .status(500)
      .json({ statusCode: 500, error: 'Internal Server Error', message: 'An internal error occurred.' });
  }
}
