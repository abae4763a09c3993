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

  /** `error`, when given, is logged as `errorWhere` describes it: its type, code and frames, never its text. */
  error(message: string, error?: unknown): void {
    this.logger.error({
      msg: message,
      ...this.fields,
      ...(error === undefined ? {} : { error: errorWhere(error) }),
    });
  }
}

/**
 * What a log line may say an error is: its type (letters only) and a system or driver code
 * (`ER_LOCK_DEADLOCK`, `EPIPE`), never its text: a message can carry SQL, row values or a secret.
 */
export function errorKind(error: unknown): { type: string; code?: string } {
  const named = (error ?? {}) as { name?: unknown; code?: unknown };
  const type = typeof named.name === 'string' && /^[A-Za-z]{1,40}$/u.test(named.name) ? named.name : 'Error';
  const code =
    typeof named.code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/u.test(named.code) ? named.code : undefined;
  return code ? { type, code } : { type };
}

/**
 * What the log may keep of an unexpected error: its kind (`errorKind`) and where it was thrown — up to
 * five frames, function and file:line. Never its stack text, whose first line is the message.
 */
export function errorWhere(error: unknown): { type: string; code?: string; at: string[] } {
  const stack = (error as { stack?: unknown } | null)?.stack;
  const at =
    typeof stack === 'string'
      ? stack
          .split('\n')
          .map((line) =>
            /^\s+at (?:async )?([\w$.<>\s[\]]{1,120}?) \(?((?:file:\/\/)?\/[^():]+:\d+):\d+\)?$/u.exec(line),
          )
          .filter((frame): frame is RegExpExecArray => frame !== null)
          .slice(0, 5)
          .map(([, fn, file]) => `${fn} ${file.replace(/^file:\/\//u, '').replace(`${process.cwd()}/`, '')}`)
      : [];
  return { ...errorKind(error), at };
}
