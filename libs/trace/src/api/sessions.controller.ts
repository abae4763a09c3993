import { BadRequestException, Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiCaller, ApiErrorDto, Caller, RequireApiKey } from '@app/auth';
import { RunRepository } from '../repositories/run.repository';
import { BAD_CURSOR, decodeSessionCursor, encodeSessionCursor } from './page-cursor';
import { CursorPageQueryDto, SessionListDto } from './sessions.dto';

/** The calling key's own sessions, so a client can pick one instead of pasting its id. */
@ApiTags('trace')
@Controller('api/diagnosis/sessions')
export class SessionsController {
  constructor(private readonly runs: RunRepository) {}

  @Get()
  @RequireApiKey('trace_reader')
  @ApiOperation({
    summary: 'Sessions created by the calling API key, last activity first, a page at a time (cursor)',
  })
  @ApiOkResponse({ type: SessionListDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'Invalid limit or cursor' })
  async list(@Query() query: CursorPageQueryDto, @Caller() caller: ApiCaller): Promise<SessionListDto> {
    const limit = query.limit ?? 20;
    const after = query.cursor === undefined ? null : decodeSessionCursor(query.cursor);
    if (query.cursor !== undefined && after === null) throw new BadRequestException(BAD_CURSOR);
    const { sessions, next } = await this.runs.listOwnedSessions(caller.keyDigest, limit, after);
    return {
      sessions: sessions.map((session) => ({
        session_id: session.sessionId,
        created_at: session.createdAt.toISOString(),
        updated_at: session.updatedAt.toISOString(),
        last_run_at: session.lastRunAt ? session.lastRunAt.toISOString() : null,
        run_count: session.runCount,
        last_outcome: session.lastOutcome,
        last_query: session.lastQuery,
      })),
      limit,
      next_cursor: next ? encodeSessionCursor(next) : null,
    };
  }
}
