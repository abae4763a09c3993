import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { llmConfig, LlmConfig } from '../config/llm.config';
import type { ModelTransportCode } from '../run/harness-errors';
import {
  classOfAnswer,
  providerErrorBody,
  providerFailureOf,
  redactCredentials,
  signalsOf,
} from './provider-errors';

const CHECK_TIMEOUT_MS = 5000;
/**
 * Check failures that every model call would meet too. A check request the provider refused for its own
 * shape (a 400 on the 1-token completion), a busy provider, or a rate limit says nothing about the
 * service's real calls, so those never make a chat fail early.
 */
const FAILS_EVERY_CALL: ReadonlySet<ModelTransportCode> = new Set([
  'MODEL_AUTH_FAILED',
  'MODEL_QUOTA_EXHAUSTED',
  'MODEL_NOT_FOUND',
  'MODEL_ENDPOINT_INVALID',
  'MODEL_TLS_FAILED',
  'MODEL_UNREACHABLE',
  'MODEL_TIMEOUT',
]);
/** A failed check is repeated by /health at most this often, so a fixed key shows up without a restart. */
const RECHECK_INTERVAL_MS = 30_000;

export interface ProviderCheckResult {
  up: boolean;
  /** HTTP status of the check request; null when no answer came (unreachable, timeout, TLS). */
  httpStatus: number | null;
  /** Safe for logs and /health: names the cause, never the key. */
  message: string;
  /** The failure class (docs/provider-failures.md); null when the check passed. */
  code: ModelTransportCode | null;
  /** What to change, naming only a setting the check found wrong (the doctor prints it). */
  fix: string | null;
}

interface ProviderAnswer {
  status: number;
  body: unknown;
}

type CheckMode = 'models' | 'completion';
type CheckConfig = Pick<LlmConfig, 'baseUrl' | 'apiKey' | 'model' | 'extraBody' | 'startupCheck'>;

const failed = (
  httpStatus: number | null,
  code: ModelTransportCode,
  message: string,
  fix: string | null,
): ProviderCheckResult => ({ up: false, httpStatus, message, code, fix });

/** What one check answer means for the configured key and model (a pure function, table-tested). */
export function judgeProviderAnswer(
  mode: CheckMode,
  model: string,
  answer: ProviderAnswer,
  secrets: readonly string[] = [],
): ProviderCheckResult {
  const { status, body } = answer;
  const said = providerErrorBody(body);
  // A 2xx is judged on its body: gateways answer errors with HTTP 200 too.
  const bodyError =
    status >= 200 && status < 300 && typeof body === 'object' && body !== null && 'error' in body;
  if (status < 200 || status >= 300 || bodyError) {
    const code = classOfAnswer(bodyError ? (said?.status ?? status) : status, signalsOf(said, null));
    // The message, then its code in brackets (`code: message` would read as a key assignment to redact).
    const detail = redactCredentials(
      [said?.message, said?.code ? `[${said.code}]` : null]
        .filter((part) => typeof part === 'string')
        .join(' '),
      secrets,
    ).slice(0, 200);
    const what = mode === 'models' ? 'GET /models' : 'a 1-token completion';
    const answered = `HTTP ${status}${detail ? ` (${detail})` : ''}`;
    switch (code) {
      case 'MODEL_AUTH_FAILED':
        // A 401/403 says it all; a key refused under another status (Gemini's 400) shows the provider's words.
        return failed(
          status,
          code,
          `the provider rejected LLM_API_KEY (${status})${status === 401 || status === 403 || !detail ? '' : `: ${detail}`}`,
          'set a valid LLM_API_KEY for LLM_BASE_URL',
        );
      case 'MODEL_QUOTA_EXHAUSTED':
        return failed(
          status,
          code,
          `the provider account has no balance or quota left (${answered})`,
          'top up the provider account or raise its quota; the settings are right',
        );
      case 'MODEL_NOT_FOUND':
        return failed(
          status,
          code,
          `model ${model} not found (${answered})`,
          'set LLM_MODEL to a model the provider lists (GET $LLM_BASE_URL/models)',
        );
      case 'MODEL_ENDPOINT_INVALID':
        return failed(status, code, `nothing answers ${what} at LLM_BASE_URL (${answered})`, null);
      case 'MODEL_RATE_LIMITED':
      case 'MODEL_UNAVAILABLE':
      case 'MODEL_TIMEOUT':
        return failed(
          status,
          code,
          `the provider is busy or unavailable (${answered})`,
          'run the check again later; no setting is shown to be wrong',
        );
      case 'MODEL_BAD_RESPONSE':
      case 'MODEL_CONTENT_FILTERED':
      case 'MODEL_CONTEXT_TOO_LONG':
      case 'MODEL_REQUEST_REJECTED':
      case 'MODEL_TLS_FAILED':
      case 'MODEL_UNREACHABLE':
        return failed(
          status,
          code,
          `the provider answered ${what} with ${answered}`,
          'read the provider message above (docs/provider-failures.md)',
        );
    }
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
      return failed(
        status,
        'MODEL_NOT_FOUND',
        `model ${model} not found in the provider's model list`,
        'set LLM_MODEL to a model the provider lists (GET $LLM_BASE_URL/models)',
      );
    }
  }
  return {
    up: true,
    httpStatus: status,
    message: 'the provider accepted LLM_API_KEY and LLM_MODEL',
    code: null,
    fix: null,
  };
}

/** A connection that brought no HTTP answer, named by its class and Node's error code. */
export function judgeConnectionFailure(error: unknown): ProviderCheckResult {
  const failure = providerFailureOf(error);
  const code = failure?.code ?? 'MODEL_UNREACHABLE';
  const node = failure?.networkCode ? ` (${failure.networkCode})` : '';
  if (code === 'MODEL_TIMEOUT')
    return failed(
      null,
      code,
      'the provider at LLM_BASE_URL timed out',
      'check that LLM_BASE_URL points at the provider and the network lets it through',
    );
  if (code === 'MODEL_TLS_FAILED') {
    const plainHttp = /WRONG_VERSION_NUMBER|EPROTO/.test(failure?.networkCode ?? '');
    return failed(
      null,
      code,
      `the TLS connection to LLM_BASE_URL failed${node}`,
      plainHttp
        ? "the server speaks plain HTTP: use http:// in LLM_BASE_URL, or the provider's HTTPS port"
        : "the provider's certificate is not trusted: add its CA with NODE_EXTRA_CA_CERTS, or fix the certificate or the host name in LLM_BASE_URL",
    );
  }
  return failed(
    null,
    code,
    `the provider at LLM_BASE_URL is unreachable${node}`,
    'check the host and port in LLM_BASE_URL and the network',
  );
}

/** Base URLs to try when nothing answers at the configured one: the usual two mistakes, corrected. */
export function baseUrlCandidates(baseUrl: string): { url: string; mistake: string }[] {
  const base = baseUrl.replace(/\/+$/, '');
  if (/\/chat\/completions$/.test(base))
    return [
      {
        url: base.replace(/\/chat\/completions$/, ''),
        mistake: 'LLM_BASE_URL ends in /chat/completions, which the client appends itself',
      },
    ];
  if (!/\/v\d+[a-z0-9]*$/i.test(base))
    return [{ url: `${base}/v1`, mistake: 'LLM_BASE_URL lacks the /v1 path' }];
  return [];
}

/**
 * One cheap request against the configured provider, judged: `GET /models`, or a 1-token completion
 * (LLM_STARTUP_CHECK=completion) for providers without a model list. When nothing answers at the URL,
 * the completion endpoint is asked too (some providers have no /models), then the corrected URLs of the
 * two usual mistakes, so the advice names the setting that is wrong. Used by the start-up check and by
 * `npm run doctor`; never throws.
 */
export async function checkLlmProvider(llm: CheckConfig): Promise<ProviderCheckResult> {
  const mode: CheckMode = llm.startupCheck === 'completion' ? 'completion' : 'models';
  const judge = (checkMode: CheckMode, answer: ProviderAnswer) =>
    judgeProviderAnswer(checkMode, llm.model, answer, [llm.apiKey]);
  try {
    const result = judge(mode, await askProvider(llm.baseUrl, llm, mode));
    if (result.code !== 'MODEL_ENDPOINT_INVALID') return result;
    if (mode === 'models') {
      const completion = judge('completion', await askProvider(llm.baseUrl, llm, 'completion'));
      if (completion.code !== 'MODEL_ENDPOINT_INVALID')
        return completion.up
          ? {
              ...completion,
              message: `${completion.message}; the provider has no GET /models`,
              fix: 'set LLM_STARTUP_CHECK=completion (the provider has no GET /models)',
            }
          : completion;
    }
    for (const candidate of baseUrlCandidates(llm.baseUrl)) {
      const answer = await askProvider(candidate.url, llm, mode).catch(() => null);
      if (answer && judge(mode, answer).code !== 'MODEL_ENDPOINT_INVALID')
        return {
          ...result,
          message: `${result.message}: ${candidate.mistake}`,
          fix: `set LLM_BASE_URL=${candidate.url}`,
        };
    }
    return {
      ...result,
      fix: "set LLM_BASE_URL to the provider's OpenAI-compatible base URL (it usually ends in /v1)",
    };
  } catch (error) {
    return judgeConnectionFailure(error);
  }
}

async function askProvider(
  baseUrl: string,
  llm: Pick<LlmConfig, 'apiKey' | 'model' | 'extraBody'>,
  mode: CheckMode,
): Promise<ProviderAnswer> {
  const base = baseUrl.replace(/\/+$/, '');
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
  let body: unknown = text;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    body = text === '' ? null : text;
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
  /** The last finished check, for callers that must not wait on one in flight. */
  private settled: ProviderCheckResult | null = null;

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
    const details = {
      check: this.llm.startupCheck,
      http_status: result.httpStatus,
      message: result.message,
      ...(result.code ? { code: result.code } : {}),
    };
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

  /**
   * The cause when the provider is known to be down: the last check failed less than the re-check
   * interval ago. A chat then fails at once under that cause instead of waiting on the provider. A
   * stale failure starts a new check and says nothing (the call goes ahead).
   */
  knownFailure(): ProviderCheckResult | null {
    const settled = this.settled;
    if (this.llm.startupCheck === 'off' || settled?.code == null || !FAILS_EVERY_CALL.has(settled.code))
      return null;
    // A model missing from a list the provider answered (200) is a hint, not a refusal: lists can be partial.
    if (settled.code === 'MODEL_NOT_FOUND' && settled.httpStatus === 200) return null;
    if (Date.now() - this.checkedAt <= RECHECK_INTERVAL_MS) return settled;
    void this.latest();
    return null;
  }

  private async run(): Promise<ProviderCheckResult> {
    const result = await checkLlmProvider(this.llm);
    this.settled = result;
    if (result.up) this.logger.log(`LLM provider check passed: ${result.message}`);
    else this.logger.error(`LLM provider check failed: ${result.message}`);
    return result;
  }
}
