import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { llmConfig, LlmConfig } from '../config/llm.config';
import { redactCredentials } from './provider-errors';

const CHECK_TIMEOUT_MS = 5000;
/** A failed check is repeated by /health at most this often, so a fixed key shows up without a restart. */
const RECHECK_INTERVAL_MS = 30_000;

export interface ProviderCheckResult {
  up: boolean;
  /** HTTP status of the check request; null when no answer came (unreachable, timeout). */
  httpStatus: number | null;
  /** Safe for logs and /health: names the cause, never the key. */
  message: string;
}

interface ProviderAnswer {
  status: number;
  body: unknown;
}

const errorOf = (body: unknown): { code?: unknown; message?: unknown } =>
  typeof body === 'object' && body !== null && 'error' in body && typeof body.error === 'object'
    ? ((body.error ?? {}) as { code?: unknown; message?: unknown })
    : {};

/** What one check answer means for the configured key and model (a pure function, table-tested). */
export function judgeProviderAnswer(
  mode: 'models' | 'completion',
  model: string,
  answer: ProviderAnswer,
  secrets: readonly string[] = [],
): ProviderCheckResult {
  const { status, body } = answer;
  const error = errorOf(body);
  const detail = redactCredentials(
    [error.code, error.message].filter((part) => typeof part === 'string').join(': '),
    secrets,
  );
  if (status === 401 || status === 403) {
    return { up: false, httpStatus: status, message: `the provider rejected LLM_API_KEY (${status})` };
  }
  if (status === 404 && mode === 'completion') {
    return { up: false, httpStatus: status, message: `model ${model} not found (404)` };
  }
  if (status === 404 && error.code === 'model_not_found') {
    return { up: false, httpStatus: status, message: `model ${model} not found (404)` };
  }
  if (status < 200 || status >= 300) {
    const what = mode === 'models' ? 'GET /models' : 'a 1-token completion';
    return {
      up: false,
      httpStatus: status,
      message: `the provider answered ${what} with HTTP ${status}${detail ? ` (${detail.slice(0, 200)})` : ''}`,
    };
  }
  if (mode === 'models') {
    const data = typeof body === 'object' && body !== null && 'data' in body ? body.data : undefined;
    const ids = Array.isArray(data)
      ? data.map((entry: unknown) =>
          typeof entry === 'object' && entry !== null && 'id' in entry ? String(entry.id) : '',
        )
      : [];
    // Only a list that names models and not ours is evidence; an empty list says nothing.
    if (ids.length > 0 && !ids.includes(model)) {
      return {
        up: false,
        httpStatus: status,
        message: `model ${model} not found in the provider's model list`,
      };
    }
  }
  return { up: true, httpStatus: status, message: 'the provider accepted LLM_API_KEY and LLM_MODEL' };
}

/**
 * One cheap request against the configured provider, judged: `GET /models`, or a 1-token completion
 * (LLM_STARTUP_CHECK=completion) for providers without a model list. Used by the start-up check and
 * by `npm run doctor`; never throws.
 */
export async function checkLlmProvider(
  llm: Pick<LlmConfig, 'baseUrl' | 'apiKey' | 'model' | 'extraBody' | 'startupCheck'>,
): Promise<ProviderCheckResult> {
  const mode = llm.startupCheck === 'completion' ? 'completion' : 'models';
  try {
    return judgeProviderAnswer(mode, llm.model, await askProvider(llm, mode), [llm.apiKey]);
  } catch (error) {
    const reason = error instanceof Error && error.name === 'TimeoutError' ? 'timed out' : 'is unreachable';
    return { up: false, httpStatus: null, message: `the provider at LLM_BASE_URL ${reason}` };
  }
}

async function askProvider(
  llm: Pick<LlmConfig, 'baseUrl' | 'apiKey' | 'model' | 'extraBody'>,
  mode: 'models' | 'completion',
): Promise<ProviderAnswer> {
  const base = llm.baseUrl.replace(/\/+$/, '');
  const headers = { authorization: `Bearer ${llm.apiKey}`, 'content-type': 'application/json' };
  const response =
    mode === 'models'
      ? await fetch(`${base}/models`, { headers, signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) })
      : await fetch(`${base}/chat/completions`, {
          method: 'POST',
          headers,
          signal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
          body: JSON.stringify({
            ...llm.extraBody,
            model: llm.model,
            max_tokens: 1,
            messages: [{ role: 'user', content: 'ping' }],
          }),
        });
  const text = await response.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    body = null;
  }
  return { status: response.status, body };
}

/**
 * The start-up provider check: one cheap request (`GET /models`, or a 1-token completion where a
 * provider has no model list) that turns a rejected key or an unknown model into an error line
 * naming the cause and `llm: down` in /health. It never stops the service from starting: the check
 * runs after start-up and its result is only reported.
 */
@Injectable()
export class LlmProviderCheck implements OnApplicationBootstrap {
  private readonly logger = new Logger('LlmProviderCheck');
  private result: Promise<ProviderCheckResult> | null = null;
  private checkedAt = 0;

  constructor(
    @Inject(llmConfig.KEY) private readonly llm: LlmConfig,
    private readonly health: HealthIndicatorService,
  ) {}

  onApplicationBootstrap(): void {
    if (this.llm.startupCheck !== 'off') void this.latest();
  }

  /** The /health indicator: up when the check passed or is off, down with the cause and status. */
  async check(key = 'llm') {
    const indicator = this.health.check(key);
    if (this.llm.startupCheck === 'off') return indicator.up({ check: 'off' });
    const result = await this.latest();
    const details = { check: this.llm.startupCheck, http_status: result.httpStatus, message: result.message };
    return result.up ? indicator.up(details) : indicator.down(details);
  }

  private async latest(): Promise<ProviderCheckResult> {
    const stale = this.result && Date.now() - this.checkedAt > RECHECK_INTERVAL_MS && !(await this.result).up;
    if (!this.result || stale) {
      this.checkedAt = Date.now();
      this.result = this.run();
    }
    return this.result;
  }

  private async run(): Promise<ProviderCheckResult> {
    const result = await checkLlmProvider(this.llm);
    if (result.up) this.logger.log(`LLM provider check passed: ${result.message}`);
    else this.logger.error(`LLM provider check failed: ${result.message}`);
    return result;
  }
}
