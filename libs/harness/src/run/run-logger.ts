import { Logger } from '@nestjs/common';

/**
 * A logger bound to one run: every line carries the run's runId and sessionId as fields (a JSON line
 * under pino). Obtained from the RunContext and passed along with it, so no ambient state is needed.
 */
export class RunLogger {
  private readonly logger: Logger;

  constructor(
    context: string,
    private readonly fields: { runId: string; sessionId: string },
  ) {
    this.logger = new Logger(context);
  }

  log(message: string): void {
    this.logger.log({ msg: message, ...this.fields });
  }

  /** `extra` adds safe structured fields (codes, statuses), never prompts or payloads. */
  warn(message: string, extra: Record<string, unknown> = {}): void {
    this.logger.warn({ msg: message, ...extra, ...this.fields });
  }

  /** `stack` is for the operator's log only; callers never send it to a client. */
  error(message: string, stack?: string): void {
    this.logger.error({ msg: message, ...this.fields, ...(stack === undefined ? {} : { stack }) });
  }
}
