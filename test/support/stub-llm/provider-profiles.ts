/**
 * Strict provider profiles of the stub LLM: each rule is answered the way the real provider answers
 * it (HTTP status + error body), so a client mistake that a real provider would reject fails the tests.
 *
 * - `deepseek-thinking`: DeepSeek's thinking mode. Every reply carries `reasoning_content`; a request
 *   whose earlier assistant tool-call turn lacks the reasoning it was given is rejected; tool calls must
 *   be answered; `max_tokens` is honoured (reasoning counts against it).
 * - `openai`: every assistant `tool_calls` id answered by the following `tool` messages, no orphan
 *   tool messages, unknown roles / request arguments / message fields rejected, `max_tokens` and
 *   `max_completion_tokens` honoured. Never returns `reasoning_content` (OpenAI does not).
 * - `lenient`: no rules; replies exactly as scripted.
 * - `ollama-think`: a local server without a reasoning parser (Ollama, LM Studio, vLLM without
 *   `--reasoning-parser`): the model's thinking arrives inside `content` as `<think>…</think>\n\n`.
 * - `vllm-reasoning`: vLLM ≥ 0.9 / Ollama's OpenAI API: thinking in a `reasoning` field, never
 *   `reasoning_content`.
 * - `openrouter-reasoning`: OpenRouter with a reasoning model: every reply carries `reasoning` and
 *   `reasoning_details`, and a request whose earlier assistant tool-call turn lacks the
 *   `reasoning_details` it was given is rejected (as providers behind OpenRouter that require them do).
 */
export const PROVIDER_PROFILES = [
  'deepseek-thinking',
  'openai',
  'lenient',
  'ollama-think',
  'vllm-reasoning',
  'openrouter-reasoning',
] as const;
export type ProviderProfile = (typeof PROVIDER_PROFILES)[number];

/** What an unscripted profile means: the default model is DeepSeek's, so the default is its strict mode. */
export const DEFAULT_PROFILE: ProviderProfile = 'deepseek-thinking';

export interface ProviderError {
  status: number;
  body: { error: { message: string; type: string; param: string | null; code: string | null } };
}

interface RequestMessage {
  role?: unknown;
  tool_calls?: unknown;
  tool_call_id?: unknown;
  reasoning_content?: unknown;
  [key: string]: unknown;
}

const invalidRequest = (message: string, param: string | null, code: string | null): ProviderError => ({
  status: 400,
  body: { error: { message, type: 'invalid_request_error', param, code } },
});

/** DeepSeek's body for a missing reasoning round trip (as its API returns it). */
export const DEEPSEEK_REASONING_MESSAGE =
  'The `reasoning_content` in the thinking mode must be passed back to the API.';
/** A provider behind OpenRouter that needs its reasoning back (the wording varies by upstream). */
export const OPENROUTER_REASONING_MESSAGE =
  'Provider returned error: reasoning_details from the previous assistant turn must be passed back';
export const OPENAI_UNANSWERED_TOOL_CALLS =
  "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'.";
const OPENAI_ORPHAN_TOOL =
  "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";

/** Two tool messages answering the same id (a strict provider's 400; the exact wording varies). */
export const OPENAI_DUPLICATE_TOOL_ANSWER =
  'Invalid parameter: more than one tool message responds to tool_call_id';

const OPENAI_ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'];
const OPENAI_REQUEST_ARGUMENTS = new Set([
  'model',
  'messages',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'stream',
  'stream_options',
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'n',
  'stop',
  'presence_penalty',
  'frequency_penalty',
  'logit_bias',
  'logprobs',
  'top_logprobs',
  'user',
  'seed',
  'response_format',
  'reasoning_effort',
  'service_tier',
  'store',
  'metadata',
  'modalities',
  'audio',
  'prediction',
  'prompt_cache_key',
  'prompt_cache_retention',
  'safety_identifier',
  'verbosity',
  'web_search_options',
  'functions',
  'function_call',
]);
const OPENAI_MESSAGE_FIELDS: Record<string, string[]> = {
  system: ['role', 'content', 'name'],
  developer: ['role', 'content', 'name'],
  user: ['role', 'content', 'name'],
  assistant: ['role', 'content', 'name', 'tool_calls', 'refusal', 'audio', 'function_call'],
  // `name` is not in OpenAI's schema for tool messages, but the API accepts it and every
  // @langchain/openai client sends it, so rejecting it would be stricter than the provider
  tool: ['role', 'content', 'tool_call_id', 'name'],
  function: ['role', 'content', 'name'],
};

function toolCallIds(message: RequestMessage): string[] {
  if (!Array.isArray(message.tool_calls)) return [];
  return message.tool_calls
    .map((call) => (typeof call === 'object' && call && 'id' in call ? String(call.id) : ''))
    .filter((id) => id !== '');
}

/**
 * Every assistant message with tool calls must be followed, before the next non-tool message, by one
 * tool message per id; a tool message must answer an id of the assistant message just before it, and
 * no id may be answered twice.
 */
function checkToolAnswers(
  messages: RequestMessage[],
  unanswered: (ids: string[], index: number) => ProviderError,
): ProviderError | null {
  let open: { ids: Set<string>; answered: Set<string>; index: number } | null = null;
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index];
    if (message.role === 'tool') {
      const id = String(message.tool_call_id ?? '');
      if (open?.answered.has(id)) {
        return invalidRequest(
          `${OPENAI_DUPLICATE_TOOL_ANSWER} '${id}'`,
          `messages.[${index}].tool_call_id`,
          null,
        );
      }
      if (!open || !open.ids.delete(id)) {
        return invalidRequest(OPENAI_ORPHAN_TOOL, `messages.[${index}].role`, null);
      }
      open.answered.add(id);
      continue;
    }
    if (open && open.ids.size > 0) return unanswered([...open.ids], open.index);
    const ids = toolCallIds(message);
    open =
      message.role === 'assistant' && ids.length > 0
        ? { ids: new Set(ids), answered: new Set(), index }
        : null;
  }
  return open && open.ids.size > 0 ? unanswered([...open.ids], open.index) : null;
}

function checkOpenAi(body: Record<string, unknown>, messages: RequestMessage[]): ProviderError | null {
  const unknownArgument = Object.keys(body).find((key) => !OPENAI_REQUEST_ARGUMENTS.has(key));
  if (unknownArgument) {
    return invalidRequest(`Unrecognized request argument supplied: ${unknownArgument}`, null, null);
  }
  for (const [index, message] of messages.entries()) {
    const role = String(message.role);
    const allowed = OPENAI_MESSAGE_FIELDS[role];
    if (!allowed) {
      return invalidRequest(
        `Invalid value: '${role}'. Supported values are: ${OPENAI_ROLES.map((r) => `'${r}'`).join(', ')}.`,
        `messages[${index}].role`,
        'invalid_value',
      );
    }
    const extra = Object.keys(message).find((key) => !allowed.includes(key));
    if (extra) {
      return invalidRequest(
        `Additional properties are not allowed ('${extra}' was unexpected) - 'messages.${index}'`,
        null,
        null,
      );
    }
  }
  return checkToolAnswers(messages, (ids, index) =>
    invalidRequest(
      `${OPENAI_UNANSWERED_TOOL_CALLS} The following tool_call_ids did not have response messages: ${ids.join(', ')}`,
      `messages.[${index}].role`,
      null,
    ),
  );
}

function checkDeepSeekThinking(messages: RequestMessage[]): ProviderError | null {
  const missing = messages.some(
    (message) =>
      message.role === 'assistant' &&
      toolCallIds(message).length > 0 &&
      typeof message.reasoning_content !== 'string',
  );
  if (missing) return invalidRequest(DEEPSEEK_REASONING_MESSAGE, null, 'invalid_request_error');
  return checkToolAnswers(messages, () =>
    invalidRequest(
      `${OPENAI_UNANSWERED_TOOL_CALLS} (insufficient tool messages following tool_calls message)`,
      null,
      'invalid_request_error',
    ),
  );
}

/** The provider's answer to a request that breaks one of its rules, or null when it is accepted. */
export function checkRequest(profile: ProviderProfile, body: Record<string, unknown>): ProviderError | null {
  const messages = Array.isArray(body.messages) ? (body.messages as RequestMessage[]) : [];
  switch (profile) {
    case 'lenient':
    case 'ollama-think':
    case 'vllm-reasoning':
      return null;
    case 'openrouter-reasoning':
      return messages.some(
        (message) =>
          message.role === 'assistant' &&
          toolCallIds(message).length > 0 &&
          !Array.isArray(message.reasoning_details),
      )
        ? invalidRequest(OPENROUTER_REASONING_MESSAGE, null, null)
        : null;
    case 'openai':
      return checkOpenAi(body, messages);
    case 'deepseek-thinking':
      return checkDeepSeekThinking(messages);
  }
}

export interface ReplyShape {
  content: string;
  /** Set by shapeReply: the reply's output tokens (≈ chars / 4), the bound when cut. */
  reasoning_content?: string;
  /** vLLM ≥ 0.9's name for the same thing. */
  reasoning?: string;
  /** OpenRouter's structured reasoning, to be returned as is. */
  reasoning_details?: unknown[];
  tool_calls: { id?: string; type: 'function'; function: { name: string; arguments: string } }[];
  finish_reason: string;
  completion_tokens: number;
}

export const approxTokens = (text: string) => Math.ceil(text.length / 4);

/** The output-token bound of a request, if it set one. */
export function maxTokensOf(body: Record<string, unknown>): number | undefined {
  const bound = body.max_completion_tokens ?? body.max_tokens;
  return typeof bound === 'number' && Number.isInteger(bound) && bound > 0 ? bound : undefined;
}

/**
 * A scripted reply as the profile's provider would send it: reasoning added (DeepSeek) or removed
 * (OpenAI), and cut at the request's output bound with finish_reason `length` (the bound covers the
 * reasoning first; a cut reply keeps no tool calls, as their arguments would be incomplete).
 */
export function shapeReply(
  profile: ProviderProfile,
  reply: ReplyShape,
  maxTokens: number | undefined,
  context: { role: string; turn: number },
): ReplyShape {
  let shaped = { ...reply };
  if (profile === 'deepseek-thinking' && shaped.reasoning_content === undefined) {
    shaped.reasoning_content = `stub reasoning of ${context.role}, turn ${context.turn}`;
  }
  if (profile === 'openai') delete shaped.reasoning_content;
  const thinking = shaped.reasoning_content ?? `stub thinking of ${context.role}, turn ${context.turn}`;
  if (profile === 'ollama-think') {
    delete shaped.reasoning_content;
    return { ...shaped, content: `<think>\n${thinking}\n</think>\n\n${shaped.content}` };
  }
  if (profile === 'vllm-reasoning') {
    delete shaped.reasoning_content;
    return { ...shaped, reasoning: thinking };
  }
  if (profile === 'openrouter-reasoning') {
    delete shaped.reasoning_content;
    return {
      ...shaped,
      reasoning: thinking,
      reasoning_details: [{ type: 'reasoning.text', text: thinking }],
    };
  }
  const reasoningTokens = approxTokens(shaped.reasoning_content ?? '');
  const used = approxTokens(
    (shaped.reasoning_content ?? '') +
      shaped.content +
      shaped.tool_calls.map((call) => call.function.arguments).join(''),
  );
  shaped.completion_tokens = used;
  if (profile === 'lenient' || maxTokens === undefined || used <= maxTokens) return shaped;
  const room = Math.max(0, maxTokens - reasoningTokens) * 4;
  shaped = {
    ...shaped,
    reasoning_content: shaped.reasoning_content?.slice(0, maxTokens * 4),
    content: shaped.content.slice(0, room),
    tool_calls: [],
    finish_reason: 'length',
    completion_tokens: maxTokens,
  };
  if (shaped.reasoning_content === undefined) delete shaped.reasoning_content;
  return shaped;
}
