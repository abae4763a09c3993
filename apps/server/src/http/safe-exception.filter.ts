import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';

/**
 * The one place HTTP errors leave the service. HttpExceptions carry our own safe messages and pass
 * through; anything else becomes a plain 500, and the log gets the error's class only — never its
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
    if (exception instanceof HttpException) {
      response.status(exception.getStatus()).json(exception.getResponse());
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
