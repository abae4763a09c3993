import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiCaller, ApiErrorDto, Caller, RequireApiKey } from '@app/auth';
import { RunRepository } from '../repositories/run.repository';
import { PageQueryDto, SessionListDto } from './sessions.dto';

/** The calling key's own sessions, so a client can pick one instead of pasting its id. */
@ApiTags('trace')
@Controller('api/diagnosis/sessions')
export class SessionsController {
  constructor(private readonly runs: RunRepository) {}

  @Get()
  @RequireApiKey('trace_reader')
  @ApiOperation({ summary: 'Sessions created by the calling API key, newest run first' })
  @ApiOkResponse({ type: SessionListDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'Invalid limit or offset' })
  async list(@Query() query: PageQueryDto, @Caller() caller: ApiCaller): Promise<SessionListDto> {
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const { sessions, total } = await this.runs.listOwnedSessions(caller.keyDigest, limit, offset);
    return {
      sessions: sessions.map((session) => ({
        session_id: session.sessionId,
        created_at: session.createdAt.toISOString(),
        last_run_at: session.lastRunAt ? session.lastRunAt.toISOString() : null,
        run_count: session.runCount,
        last_query: session.lastQuery,
      })),
      limit,
      offset,
      total,
    };
  }
}
