import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import {
  AIMessage,
  BaseMessage,
  isAIMessage,
  isHumanMessage,
  isSystemMessage,
} from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { ProviderBodyError } from '@app/harness';
import type { ProviderCallOptions } from '@app/harness';
import { parseStubScript, StubReply, StubScriptPlayer } from './stub-llm/stub-script';
import { fillTemplate } from './stub-llm/stub-template';

/** The `<!-- role: NAME -->` marker every prompt file starts with, as the stub server reads it. */
const ROLE_MARKER = /^<!--\s*role:\s*([a-z0-9-]+)\s*-->/;

/** What the fake was asked: the role, the messages after the system prompt and the call's options. */
export interface FakeModelCall {
  role: string | null;
  messages: BaseMessage[];
  tools: string[];
  maxOutputTokens: number | undefined;
}

/**
 * The provider's error as the OpenAI client throws it: `status`, `headers` and the `error` body are what
 * classifyProviderError and providerErrorDetails read.
 */
export class FakeProviderError extends Error {
  readonly error: { message: string; type: string; code: string };

  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
    body: { message: string; type: string; code: string },
    /** A scripted body in the provider's own shape, as the provider client captures it. */
    readonly providerBody?: unknown,
  ) {
    super(body.message);
    this.name = 'APIError';
    this.error = body;
  }
}

const text = (message: BaseMessage): string =>
  typeof message.content === 'string'
    ? message.content
    : message.content
        .map((part) => ('text' in part && typeof part.text === 'string' ? part.text : ''))
        .join('');

/**
 * An in-process chat model for unit specs that replays the stub LLM's script format (test/support/
 * stub-llm/stub-script.ts): replies are picked by the role marker of the system message with the same
 * `match`/`turn`/order rules, `error` throws a provider error with that status, `delay_ms` waits (and
 * ends early when the call's signal aborts), an exhausted role answers HTTP 500. Like langgraphjs'
 * FakeToolCallingChatModel, it stands where the provider client stands (the gateway's CHAT_PROVIDER),
 * so everything above it — gateway, budget, boundary, guards, pipeline — is the service's own code.
 * No provider profile is enforced: wire rules are the stub server's (e2e) business.
 */
export class FakeChatModel extends BaseChatModel<ProviderCallOptions> {
  readonly calls: FakeModelCall[] = [];
  private readonly player: StubScriptPlayer;

  constructor(script: unknown) {
    super({});
    this.player = new StubScriptPlayer(parseStubScript(script));
  }

  _llmType(): string {
    return 'fake-scripted';
  }

  callsFor(role: string): FakeModelCall[] {
    return this.calls.filter((call) => call.role === role);
  }

  async _generate(messages: BaseMessage[], options: this['ParsedCallOptions']): Promise<ChatResult> {
    const system = messages.find((message) => isSystemMessage(message));
    const role = system ? (ROLE_MARKER.exec(text(system).trimStart())?.[1] ?? null) : null;
    const users = messages.filter((message) => isHumanMessage(message));
    const userText = users.length > 0 ? text(users[users.length - 1]) : '';
    const turn = messages.filter((message) => isAIMessage(message)).length;
    this.calls.push({
      role,
      messages: messages.filter((message) => !isSystemMessage(message)),
      tools: (options.tools ?? []).map((tool) =>
        typeof tool === 'object' && tool !== null && 'function' in tool
          ? String((tool as { function: { name: string } }).function.name)
          : '',
      ),
      maxOutputTokens: options.maxOutputTokens,
    });
    if (role === null) throw providerError(400, 'the system message must start with <!-- role: NAME -->');
    const reply = this.player.next(role, userText, turn);
    if (!reply) throw providerError(500, `stub script has no reply left for role "${role}"`);
    if (reply.delay_ms) await waitUnlessAborted(reply.delay_ms, options.signal);
    if (reply.body !== undefined && !reply.error) throw new ProviderBodyError(reply.body);
    if (reply.error) {
      throw new FakeProviderError(
        reply.error,
        { ...reply.headers, ...(reply.retry_after ? { 'retry-after': reply.retry_after } : {}) },
        {
          message: reply.error_message ?? `scripted HTTP ${reply.error} for role "${role}"`,
          type: reply.error_type ?? 'scripted_error',
          code: reply.error_code ?? 'scripted_error',
        },
        reply.body,
      );
    }
    const message = messageOf(reply, userText);
    return { generations: [{ message, text: text(message) }] };
  }
}

function providerError(status: number, message: string): FakeProviderError {
  return new FakeProviderError(status, {}, { message, type: 'stub_error', code: 'stub_error' });
}

/** The reply as the OpenAI client would have parsed it: unreadable argument text is an invalid tool call. */
function messageOf(reply: StubReply, userText: string): AIMessage {
  const toolCalls: NonNullable<AIMessage['tool_calls']> = [];
  const invalidToolCalls: NonNullable<AIMessage['invalid_tool_calls']> = [];
  for (const call of reply.tool_calls ?? []) {
    const args = typeof call.arguments === 'string' ? parseObject(call.arguments) : call.arguments;
    if (args) toolCalls.push({ type: 'tool_call', id: call.id, name: call.name, args });
    else
      invalidToolCalls.push({
        type: 'invalid_tool_call',
        id: call.id,
        name: call.name,
        args: call.arguments as string,
        error: 'Malformed args.',
      });
  }
  const content = reply.template ? fillTemplate(reply.content ?? '', userText) : (reply.content ?? '');
  const usage = reply.usage ?? { prompt_tokens: 10, completion_tokens: Math.ceil(content.length / 4) };
  return new AIMessage({
    content,
    tool_calls: toolCalls,
    invalid_tool_calls: invalidToolCalls,
    additional_kwargs:
      reply.reasoning_content !== undefined ? { reasoning_content: reply.reasoning_content } : {},
    response_metadata: {
      finish_reason:
        reply.finish_reason ?? (toolCalls.length + invalidToolCalls.length > 0 ? 'tool_calls' : 'stop'),
    },
    ...(reply.omit_usage
      ? {}
      : {
          usage_metadata: {
            input_tokens: usage.prompt_tokens,
            output_tokens: usage.completion_tokens,
            total_tokens: usage.prompt_tokens + usage.completion_tokens,
          },
        }),
  });
}

function parseObject(value: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

function waitUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error('Request was aborted.'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}
