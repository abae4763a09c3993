import { BadRequestException, Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiCaller, ApiErrorDto, Caller, RequireApiKey } from '@app/auth';
import { RunRepository } from '../repositories/run.repository';
import { ALERT_SESSION_OWNER } from '../repositories/alert-group.repository';
import { BAD_CURSOR, decodeSessionCursor, encodeSessionCursor } from './page-cursor';
import { SessionListDto, SessionPageQueryDto } from './sessions.dto';

/** The calling key's own sessions, so a client can pick one instead of pasting its id. */
@ApiTags('trace')
@Controller('api/diagnosis/sessions')
export class SessionsController {
  constructor(private readonly runs: RunRepository) {}

  @Get()
  @RequireApiKey('trace_reader')
  @ApiOperation({
    summary:
      'Sessions created by the calling API key (scope=own), or the alert groups’ sessions (scope=alert), last activity first, a page at a time (cursor)',
  })
  @ApiOkResponse({ type: SessionListDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'Invalid limit or cursor' })
  async list(@Query() query: SessionPageQueryDto, @Caller() caller: ApiCaller): Promise<SessionListDto> {
    const limit = query.limit ?? 20;
    const after = query.cursor === undefined ? null : decodeSessionCursor(query.cursor);
    if (query.cursor !== undefined && after === null) throw new BadRequestException(BAD_CURSOR);
    // Alert groups' sessions belong to no key: every trace_reader lists them under scope=alert.
    const owner = query.scope === 'alert' ? ALERT_SESSION_OWNER : caller.keyDigest;
    const { sessions, next } = await this.runs.listOwnedSessions(owner, limit, after);
    return {
      sessions: sessions.map((session) => ({
        session_id: session.sessionId,
        created_at: session.createdAt.toISOString(),
        updated_at: session.updatedAt.toISOString(),
        last_run_at: session.lastRunAt ? session.lastRunAt.toISOString() : null,
        run_count: session.runCount,
        last_outcome: session.lastOutcome,
        last_query: session.lastQuery,
        origin: session.origin,
        alert_labels: session.alertLabels,
      })),
      limit,
      next_cursor: next ? encodeSessionCursor(next) : null,
    };
  }
}
