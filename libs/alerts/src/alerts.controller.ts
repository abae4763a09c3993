import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiOperation,
  ApiProperty,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { ALERT_OUTCOMES } from '@app/contracts';
import type { AlertOutcome } from '@app/contracts';
import { ApiErrorDto, RequireApiKey } from '@app/auth';
import { AlertmanagerWebhookDto } from './alertmanager-webhook.dto';
import { AlertIngestService, AlertStoreUnavailable, IngestResult } from './alert-ingest.service';

/** Seconds a sender is asked to wait before retrying a notification the service could not take. */
export const ALERT_RETRY_AFTER_SECONDS = 30;

export class AlertIngestResultDto implements IngestResult {
  @ApiProperty({
    enum: ALERT_OUTCOMES.filter((outcome) => outcome !== 'ALERT_QUEUE_FULL'),
    description: 'INVESTIGATION_STARTED, or the named reason no investigation was started (docs/alerts.md)',
  })
  outcome!: AlertOutcome;

  @ApiProperty({
    description: 'The alert group’s session (one per group); its trace lists every notification',
  })
  session_id!: string;

  @ApiProperty({ type: [String], description: 'The run started (at most one), or none' })
  run_ids!: string[];
}

/**
 * POST /api/alerts/alertmanager: Alertmanager's webhook (payload v4) and Grafana alerting's (same shape),
 * authenticated as `Authorization: Bearer <key>` of an `alert_ingest` key. Answers at once: 202 with the
 * run it started or the named reason it started none; 503 + Retry-After when it could take nothing now
 * (the sender retries).
 */
@ApiTags('alerts')
@RequireApiKey('alert_ingest')
@Controller('api/alerts')
export class AlertsController {
  constructor(private readonly ingest: AlertIngestService) {}

  @Post('alertmanager')
  @HttpCode(202)
  @ApiOperation({
    summary:
      'Alertmanager / Grafana alerting webhook: starts one investigation per alert group (deduplicated, capped) and answers at once',
  })
  @ApiBody({ type: AlertmanagerWebhookDto })
  @ApiAcceptedResponse({ type: AlertIngestResultDto })
  @ApiResponse({
    status: 400,
    type: ApiErrorDto,
    description: 'Not a valid webhook body, or over its bounds',
  })
  @ApiResponse({ status: 413, type: ApiErrorDto, description: 'Body over 100 KB (set max_alerts)' })
  @ApiResponse({
    status: 503,
    type: ApiErrorDto,
    description:
      'ALERT_QUEUE_FULL (the alert share’s queue is full; recorded) or the alert store is unavailable; see Retry-After',
  })
  async alertmanager(
    @Body() body: AlertmanagerWebhookDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AlertIngestResultDto | ApiErrorDto> {
    let result: IngestResult;
    try {
      result = await this.ingest.ingest(body);
    } catch (error) {
      if (!(error instanceof AlertStoreUnavailable)) throw error;
      return this.unavailable(res, 'The alert store is unavailable; nothing was started. Retry later.');
    }
    if (result.outcome === 'ALERT_QUEUE_FULL') {
      return this.unavailable(
        res,
        `ALERT_QUEUE_FULL: the alert investigations' queue is full (ALERT_MAX_QUEUE); nothing was started (session ${result.session_id}). Retry later.`,
      );
    }
    return result;
  }

  private unavailable(res: Response, message: string): ApiErrorDto {
    res.status(503).set('Retry-After', String(ALERT_RETRY_AFTER_SECONDS));
    return { statusCode: 503, error: 'Service Unavailable', message };
  }
}
