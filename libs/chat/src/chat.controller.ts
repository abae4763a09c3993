import { BadRequestException, Body, Controller, Inject, Logger, Post, Res } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiCaller, ApiErrorDto, Caller, RequireApiKey } from '@app/auth';
import type { Response } from 'express';
import { ServiceMetrics } from '@app/metrics';
import { describeDatabaseError } from '@app/trace';
import { ChatCapacity } from './chat-capacity';
import { ChatApplicationUseCase, OpenedChat, UnknownSession } from './chat-application.use-case';
import { chatConfig, ChatConfig } from './chat.config';
import { ChatRequestDto } from './chat-request.dto';
import { ChatEvent, ChatEventStream } from './sse/chat-events';

/**
 * No Connection header: Node sends keep-alive by itself, and a `Connection: close` set while the service
 * drains (ConnectionDrain) stays in force.
 */
const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};
const HEARTBEAT = ': heartbeat\n\n';

/**
 * POST /api/chat, the only chat endpoint: a validated body (400 before any stream), a known session (404),
 * bounded concurrency (503 + Retry-After before any stream; 429 when the service is busy and the calling
 * key holds its share of the queue), then named SSE events with heartbeat comments: `queued` at once while
 * the request waits for a slot, `metadata` at once when it has one. A client that disconnects leaves the
 * queue or aborts the run; nothing more is written to it.
 */
@ApiTags('chat')
@RequireApiKey('chat')
@Controller('api')
export class ChatController {
  private readonly logger = new Logger(ChatController.name);

  constructor(
    private readonly useCase: ChatApplicationUseCase,
    private readonly capacity: ChatCapacity,
    @Inject(chatConfig.KEY) private readonly config: ChatConfig,
    private readonly metrics: ServiceMetrics,
  ) {}

  @Post('chat')
  @ApiOperation({
    summary:
      'Ask a question or report a fault; answers as server-sent events: queued*, metadata, status*, content|failure, done',
  })
  @ApiBody({ type: ChatRequestDto })
  // No @ApiProduces: it would move every error answer below to text/event-stream; they are JSON.
  @ApiResponse({
    status: 200,
    description:
      'Named server-sent events in this order: queued* {ahead} (only while every chat slot is busy; again ' +
      'whenever ahead changes) → metadata {session_id, run_id} (before any slow work) → status* {code, message} → ' +
      'content {content_type, payload} | failure {code, message} → done {outcome}; heartbeat comments between. ' +
      'failure RUN_NOT_RECORDED: the run could not be recorded in time and did not start (no trace, or one closed ABANDONED)',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  @ApiResponse({
    status: 400,
    type: ApiErrorDto,
    description: 'Invalid body, or a body the service cannot read',
  })
  @ApiResponse({
    status: 404,
    type: ApiErrorDto,
    description: 'session_id never issued, or of another API key',
  })
  @ApiResponse({ status: 413, type: ApiErrorDto, description: 'Body over 100 KB' })
  @ApiResponse({
    status: 415,
    type: ApiErrorDto,
    description: 'Not application/json in UTF-8, or an unsupported content encoding',
  })
  @ApiResponse({
    status: 429,
    type: ApiErrorDto,
    description:
      'Rate limited, or the service is busy and this API key already holds its share of the queue (CHAT_MAX_QUEUED_PER_KEY); see Retry-After',
  })
  @ApiResponse({
    status: 503,
    type: ApiErrorDto,
    description:
      'At capacity (every slot and queue place taken), or the session cannot be checked; see Retry-After',
  })
  async chat(@Body() body: ChatRequestDto, @Caller() caller: ApiCaller, @Res() res: Response): Promise<void> {
    // Names are validated by pattern, so echoing the unknown ones is safe.
    const unknownTargets = body.notify ? this.useCase.unknownNotifyTargets(body.notify) : [];
    if (unknownTargets.length > 0) {
      throw new BadRequestException(
        `notify names no configured notification target: ${unknownTargets.join(', ')}`,
      );
    }
    const client = new AbortController();
    // 'close' on the response (not the request) is the client going away; after end() it is not.
    res.on('close', () => {
      if (!res.writableFinished) client.abort();
    });
    let opened: OpenedChat;
    try {
      opened = await this.useCase.open({
        sessionId: body.session_id,
        query: body.query,
        ownerKeyDigest: caller.keyDigest,
        notify: body.notify,
      });
    } catch (error) {
      if (client.signal.aborted) return;
      if (error instanceof UnknownSession) {
        res.status(404).json({ statusCode: 404, error: 'Not Found', message: 'session not found' });
        return;
      }
      this.logger.error(`chat request failed before it could queue: ${describeDatabaseError(error)}`);
      res.status(503).set('Retry-After', String(this.config.retryAfterSeconds)).json({
        statusCode: 503,
        error: 'Service Unavailable',
        message: 'The service cannot start a run right now; retry later.',
      });
      return;
    }
    let heartbeat: NodeJS.Timeout | undefined;
    const stream = new ChatEventStream((event: ChatEvent) => {
      if (!res.headersSent) {
        // No flushHeaders(): the status line and headers leave in the same socket write as this first
        // event (queued or metadata, both written before any slow work), one write per stream fewer.
        // Headers already set (rate limit) are kept.
        res.writeHead(200, SSE_HEADERS);
        heartbeat = setInterval(() => res.write(HEARTBEAT), this.config.heartbeatMs);
      }
      res.write(`event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`);
    });
    client.signal.addEventListener('abort', () => stream.close(), { once: true });
    let queueWatch: NodeJS.Timeout | undefined;
    const admission = await this.capacity.acquire(caller.keyDigest, client.signal, (ticket) => {
      // A queued client hears so at once, then whenever the count ahead of it changes.
      let told = ticket.ahead();
      stream.queued(told);
      queueWatch = setInterval(() => {
        const ahead = ticket.ahead();
        if (ahead !== told && ahead >= 0) stream.queued((told = ahead));
      }, this.config.queueStatusMs);
    });
    clearInterval(queueWatch);
    if (!admission.granted) {
      // A request that queued is only ever refused because its client left.
      if (client.signal.aborted || res.headersSent) {
        clearInterval(heartbeat);
        if (!res.writableEnded) res.end();
        return;
      }
      this.metrics.capacityRejected(admission.reason);
      const retryAfter = String(this.config.retryAfterSeconds);
      if (admission.reason === 'KEY_SHARE_FULL') {
        res
          .status(429)
          .set('Retry-After', retryAfter)
          .json({
            statusCode: 429,
            error: 'Too Many Requests',
            message: `The service is busy and this API key already holds ${this.config.maxQueuedPerKey} queued chat runs (CHAT_MAX_QUEUED_PER_KEY); retry when one has started.`,
          });
      } else {
        res.status(503).set('Retry-After', retryAfter).json({
          statusCode: 503,
          error: 'Service Unavailable',
          message: 'The service is at capacity; retry later.',
        });
      }
      return;
    }
    try {
      await this.useCase.handle(opened, stream, client.signal);
    } catch (error) {
      // The use case ends every run it started itself; reaching here is a defect. The stream is cut
      // without `done`, which the client reports as an unfinished run.
      this.logger.error(
        `chat stream ended by an unexpected ${error instanceof Error ? error.name : 'error'}`,
      );
    } finally {
      clearInterval(heartbeat);
      admission.release();
      if (!res.writableEnded) res.end();
    }
  }
}
