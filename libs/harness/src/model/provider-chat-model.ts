import { AIMessage, BaseMessage } from '@langchain/core/messages';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { ChatResult } from '@langchain/core/outputs';
import { makeInvalidToolCall, parseToolCall } from '@langchain/core/output_parsers/openai_tools';
import {
  ChatOpenAICompletions,
  ChatOpenAICompletionsCallOptions,
  OpenAIClient,
  wrapOpenAIClientError,
} from '@langchain/openai';
import type { LlmConfig } from '../config/llm.config';
import { ProviderBodyError } from './provider-errors';

export interface ProviderCallOptions extends ChatOpenAICompletionsCallOptions {
  /** The call's output bound, sent as `max_tokens` (or `max_completion_tokens` where the library uses it). */
  maxOutputTokens?: number;
}

/** Per-call data carried from `_generate` to `completionWithRetry` inside the SDK request options. */
const ROUND_TRIP = Symbol('provider-round-trip');
type ReasoningFields = Record<string, unknown>;
type RequestOptions = OpenAIClient.RequestOptions & { [ROUND_TRIP]?: (ReasoningFields | undefined)[] };
type CompletionRequest = OpenAIClient.Chat.ChatCompletionCreateParams;

/**
 * The reasoning fields providers return on an assistant message and require back on later turns:
 * DeepSeek's `reasoning_content`, vLLM/Ollama/OpenRouter's `reasoning`, OpenRouter's `reasoning_details`.
 */
export const REASONING_FIELDS = ['reasoning_content', 'reasoning', 'reasoning_details'] as const;
/** Where a reply keeps the reasoning fields exactly as the provider returned them (additional_kwargs). */
export const RETURNED_REASONING = 'provider_reasoning_fields';

/** The reasoning fields each assistant message came with, in order; undefined where the provider sent none. */
export function assistantReasoningOf(messages: BaseMessage[]): (ReasoningFields | undefined)[] {
  return messages.filter(AIMessage.isInstance).map((message) => {
    const returned = message.additional_kwargs?.[RETURNED_REASONING];
    if (typeof returned === 'object' && returned !== null && Object.keys(returned).length > 0)
      return returned as ReasoningFields;
    const reasoning = message.additional_kwargs?.reasoning_content;
    return typeof reasoning === 'string' ? { reasoning_content: reasoning } : undefined;
  });
}

/**
 * Puts each assistant message's reasoning fields back onto the serialised request, matching assistant
 * messages by position (the converter maps messages one to one and keeps their order).
 */
export function withAssistantReasoning<T extends CompletionRequest>(
  request: T,
  reasoning: (ReasoningFields | undefined)[],
): T {
  if (!reasoning.some((value) => value !== undefined)) return request;
  let index = 0;
  const messages = request.messages.map((message) => {
    if (message.role !== 'assistant') return message;
    const value = reasoning[index++];
    return value === undefined ? message : { ...message, ...value };
  });
  return { ...request, messages };
}

/**
 * The chat-completions client with two additions the library lacks:
 * - `reasoning_content` round trip: DeepSeek's thinking mode rejects a request whose earlier assistant
 *   tool-call turns lack the reasoning it returned, and `@langchain/openai`'s converter drops
 *   `additional_kwargs.reasoning_content` on the way out. It is sent back only where the provider
 *   returned it, so other providers see exactly what they sent.
 * - a per-call `max_tokens` (the library only has a per-instance one, and the model is shared).
 *
 * Why these hooks: `_generate` is where the original messages are still known and `completionWithRetry`
 * is the last step before the SDK, after the library's own mapping; the data travels between the two
 * in the call's own request options under a private symbol, so concurrent calls never share state and
 * the SDK never sees it. A custom `fetch` would have had to parse and rewrite the body with no way to
 * know the original messages. `ChatOpenAICompletions` is used directly because every provider we
 * target speaks chat completions (DeepSeek has no Responses API).
 */
export class ProviderChatModel extends ChatOpenAICompletions<ProviderCallOptions> {
  override invocationParams(
    options?: this['ParsedCallOptions'],
    extra?: { streaming?: boolean },
  ): ReturnType<ChatOpenAICompletions['invocationParams']> {
    const params = super.invocationParams(options, extra);
    const bound = options?.maxOutputTokens;
    if (bound === undefined) return params;
    // The library sets exactly one of the two keys (undefined when unbounded); keep its choice.
    return 'max_completion_tokens' in params
      ? { ...params, max_completion_tokens: bound }
      : { ...params, max_tokens: bound };
  }

  override _generate(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const requestOptions: RequestOptions = {
      ...options.options,
      [ROUND_TRIP]: assistantReasoningOf(messages),
    };
    return super._generate(messages, { ...options, options: requestOptions }, runManager);
  }

  /**
   * When none of a reply's tool calls parses, the library keeps the raw calls beside an empty
   * `tool_calls`, and @langchain/core then prints "New LangChain packages are available…" for the
   * message and again for its copy. Such a reply is built without the raw copy (the request converter
   * reads `tool_calls` once GatewayChatModel has folded the unreadable calls in); the calls themselves
   * stay in `invalid_tool_calls`, exactly as the library records them.
   */
  protected override _convertCompletionsMessageToBaseMessage(
    original: OpenAIClient.Chat.Completions.ChatCompletionMessage,
    rawResponse: OpenAIClient.Chat.Completions.ChatCompletion,
  ): BaseMessage {
    const returned = (original as { [RETURNED_REASONING]?: ReasoningFields })[RETURNED_REASONING];
    const base = this.convertMessage(original, rawResponse);
    if (returned && AIMessage.isInstance(base)) base.additional_kwargs[RETURNED_REASONING] = returned;
    return base;
  }

  private convertMessage(
    original: OpenAIClient.Chat.Completions.ChatCompletionMessage,
    rawResponse: OpenAIClient.Chat.Completions.ChatCompletion,
  ): BaseMessage {
    const raw = (original.tool_calls ?? []).map(withTextArguments);
    const message = raw.length > 0 ? { ...original, tool_calls: raw } : original;
    const invalid = [];
    for (const call of raw) {
      try {
        parseToolCall(call, { returnId: true });
        return super._convertCompletionsMessageToBaseMessage(message, rawResponse);
      } catch (error) {
        invalid.push(makeInvalidToolCall(call, (error as Error).message));
      }
    }
    if (invalid.length === 0) return super._convertCompletionsMessageToBaseMessage(message, rawResponse);
    const { tool_calls: _unparsed, ...withoutCalls } = message;
    const base = super._convertCompletionsMessageToBaseMessage(withoutCalls, rawResponse);
    if (!AIMessage.isInstance(base)) return base;
    const { tool_calls: _none, ...additional } = base.additional_kwargs;
    return new AIMessage({
      content: base.content,
      id: base.id,
      additional_kwargs: additional,
      response_metadata: base.response_metadata,
      tool_calls: [],
      invalid_tool_calls: invalid,
    });
  }

  override completionWithRetry(
    request: OpenAIClient.Chat.ChatCompletionCreateParamsStreaming,
    requestOptions?: OpenAIClient.RequestOptions,
  ): Promise<AsyncIterable<OpenAIClient.Chat.Completions.ChatCompletionChunk>>;
  override completionWithRetry(
    request: OpenAIClient.Chat.ChatCompletionCreateParamsNonStreaming,
    requestOptions?: OpenAIClient.RequestOptions,
  ): Promise<OpenAIClient.Chat.Completions.ChatCompletion>;
  override completionWithRetry(
    request: CompletionRequest,
    requestOptions?: RequestOptions,
  ): Promise<
    | AsyncIterable<OpenAIClient.Chat.Completions.ChatCompletionChunk>
    | OpenAIClient.Chat.Completions.ChatCompletion
  > {
    const { [ROUND_TRIP]: reasoning = [], ...sdkOptions } = requestOptions ?? {};
    const augmented = withAssistantReasoning(request, reasoning);
    if (augmented.stream) return super.completionWithRetry(augmented, sdkOptions);
    // Straight to the SDK client, no retries: the library's retry wrapper (p-queue + p-retry) would only
    // ever make the one attempt, at a cost on every call. Errors are wrapped as the library wraps them,
    // so failure classification is unchanged. `_getClientOptions` also creates the client on first use.
    const clientOptions = this._getClientOptions({ ...sdkOptions, maxRetries: 0 });
    keepErrorBodies(this.client);
    return this.client.chat.completions.create(augmented, clientOptions).then(
      (completion) => withReasoningField(completionOrBodyError(completion)),
      (error: unknown) => {
        throw wrapOpenAIClientError(error);
      },
    );
  }
}

type RawToolCall = OpenAIClient.Chat.Completions.ChatCompletionMessageToolCall;

/**
 * A call whose `arguments` came as a JSON object (llama.cpp, TGI) instead of the JSON text the
 * library parses: serialised, so it is read like any other call rather than refused as malformed.
 */
export function withTextArguments(call: RawToolCall): RawToolCall {
  const fn = (call as { function?: { name: string; arguments?: unknown } }).function;
  if (!fn || typeof fn.arguments === 'string') return call;
  const text = fn.arguments === undefined || fn.arguments === null ? '{}' : JSON.stringify(fn.arguments);
  return { ...call, function: { ...fn, arguments: text } } as RawToolCall;
}

const KEEPS_BODIES = new WeakSet<object>();
type StatusErrorFactory = (
  status: number,
  body: object | undefined,
  message: string | undefined,
  headers: Headers,
) => Error;

/**
 * The SDK keeps only a body's `error` member on its APIError, so a body in another shape (vLLM's
 * top-level `message`, Gemini's JSON array) reaches the classifier as "no body". Each client's status
 * errors get the whole parsed body as `providerBody` (provider-errors.ts reads it), once per client.
 */
function keepErrorBodies(client: OpenAIClient): void {
  if (KEEPS_BODIES.has(client)) return;
  KEEPS_BODIES.add(client);
  // `makeStatusError` is the SDK's protected factory for every non-2xx answer.
  const target = client as unknown as { makeStatusError: StatusErrorFactory };
  const original = target.makeStatusError.bind(client);
  target.makeStatusError = (status, body, message, headers) =>
    Object.assign(original(status, body, message, headers), { providerBody: body ?? message });
}

/** A 200 whose body is not a completion: an error body (gateways) or something else, never a TypeError. */
export function completionOrBodyError(
  completion: OpenAIClient.Chat.Completions.ChatCompletion,
): OpenAIClient.Chat.Completions.ChatCompletion {
  if (Array.isArray((completion as { choices?: unknown }).choices)) return completion;
  throw new ProviderBodyError(completion);
}

/**
 * vLLM ≥ 0.9 and Ollama return thinking as `reasoning`, which the library drops; carried over as
 * `reasoning_content` it is kept in the audit as provider reasoning like DeepSeek's.
 */
export function withReasoningField(
  completion: OpenAIClient.Chat.Completions.ChatCompletion,
): OpenAIClient.Chat.Completions.ChatCompletion {
  const choices = completion.choices.map((choice) => {
    const message = choice.message as typeof choice.message & Record<string, unknown>;
    // Kept exactly as returned, to be sent back on later turns (providers' docs require it).
    const returned = Object.fromEntries(
      REASONING_FIELDS.filter((field) => message[field] !== undefined && message[field] !== null).map(
        (field) => [field, message[field]],
      ),
    );
    const withReturned =
      Object.keys(returned).length > 0 ? { ...message, [RETURNED_REASONING]: returned } : message;
    if (typeof message.reasoning !== 'string' || message.reasoning_content !== undefined)
      return { ...choice, message: withReturned };
    return { ...choice, message: { ...withReturned, reasoning_content: message.reasoning } };
  });
  return { ...completion, choices };
}

/**
 * What the ModelGateway calls: the one ProviderChatModel in the service, an in-process fake chat model
 * in unit specs (test/support/fake-chat-model.ts), so the gateway's budget, deadline and audit code is
 * the same in both.
 */
export type ChatProvider = Pick<BaseChatModel<ProviderCallOptions>, '_generate'>;
export const CHAT_PROVIDER = Symbol('CHAT_PROVIDER');

/**
 * One provider call as `invoke` would make it, without a second runnable around it: LangGraph already
 * runs the agent's model (GatewayChatModel) as a runnable, and the gateway's budget, deadline, signal and
 * audit cover the call, so the inner callback manager, tracing run and serialised model description
 * `invoke` builds per call were pure cost (about a tenth of the service's model-call CPU). What `invoke`
 * adds to the reply, the generation info (finish_reason) in `response_metadata`, is added here.
 */
export async function generateOnce(
  provider: ChatProvider,
  messages: BaseMessage[],
  options: ProviderCallOptions,
): Promise<AIMessage> {
  options.signal?.throwIfAborted();
  const { generations } = await provider._generate(messages, options as never);
  const generation = generations[0];
  if (!generation || !AIMessage.isInstance(generation.message))
    throw new Error('the provider client returned no assistant message');
  const message = generation.message;
  message.response_metadata = { ...generation.generationInfo, ...message.response_metadata };
  return message;
}

/** The single provider client: SDK retries off (only the Harness retry matrix retries), no streaming. */
export function createProviderChatModel(llm: LlmConfig): ProviderChatModel {
  return new ProviderChatModel({
    model: llm.model,
    apiKey: llm.apiKey,
    configuration: { baseURL: llm.baseUrl, fetch: firstByteBounded(llm.firstByteTimeoutMs) },
    maxRetries: 0,
    streaming: false,
    temperature: llm.temperature,
    // The library sends `reasoning` only for model names it knows as OpenAI reasoning models; other
    // providers (DeepSeek) take `reasoning_effort` too, so it goes in as a plain body field.
    modelKwargs: {
      ...llm.extraBody,
      ...(llm.reasoningEffort ? { reasoning_effort: llm.reasoningEffort } : {}),
    },
  });
}

/** The error a call fails with when no response byte came in time (classified as MODEL_TIMEOUT). */
export class FirstByteTimeout extends Error {
  constructor(readonly afterMs: number) {
    super(`no response from the provider within ${afterMs} ms`);
    this.name = 'TimeoutError';
  }
}

/**
 * `fetch` that fails when the response headers do not arrive within `ms` (a hung provider), while the
 * body may take as long as the call's own timeout allows. The caller's signal still aborts it.
 */
export function firstByteBounded(ms: number, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const controller = new AbortController();
    const onAbort = () => controller.abort(init?.signal?.reason);
    if (init?.signal?.aborted) onAbort();
    else init?.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => controller.abort(new FirstByteTimeout(ms)), ms);
    try {
      return await base(input, { ...init, signal: controller.signal });
    } catch (error) {
      throw controller.signal.reason instanceof FirstByteTimeout ? controller.signal.reason : error;
    } finally {
      clearTimeout(timer);
    }
  };
}
