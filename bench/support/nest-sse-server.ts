import 'reflect-metadata';
import { Body, Controller, Module, Post, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Response } from 'express';
import { answerWithFirstEvent } from './reference-answer';

/**
 * The chat burst bench's second reference: the framework alone. A NestJS application on the Express
 * adapter with Nest's default body parsers and one POST /api/chat route that answers with the SSE head
 * and one `metadata` event (the bytes the bare reference and the service write first), then `done`
 * HOLD_MS later — no guards, no validation, no logging, no admission. Between the bare node:http
 * reference and this one lies what NestJS and Express cost a request; between this one and the service,
 * what the service's own work costs.
 *
 *   node nest-sse-server.js <port>    (0: a port the system chooses, which the bench reads off the process)
 */
let served = 0;

@Controller('api')
class ReferenceChatController {
  @Post('chat')
  chat(@Body() _body: unknown, @Res() response: Response): void {
    answerWithFirstEvent(response, (served += 1));
  }
}

@Module({ controllers: [ReferenceChatController] })
class ReferenceModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create<NestExpressApplication>(ReferenceModule, { logger: false });
  // The service's backlog for the raised limits (2 × (200 + 1000)), so the kernel treats all alike.
  await (app.listen as unknown as (port: number, host: string, backlog: number) => Promise<unknown>).call(
    app,
    Number(process.argv[2]),
    '127.0.0.1',
    2400,
  );
}

void main();
