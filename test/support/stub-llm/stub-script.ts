import { z } from 'zod';
import { PROVIDER_PROFILES } from './provider-profiles';
import { textAt } from './stub-template';

/** One scripted reply of the stub LLM. `arguments` given as a string is sent verbatim (e.g. malformed JSON). */
export const stubReplySchema = z.strictObject({
  content: z.string().optional(),
  reasoning_content: z.string().optional(),
  tool_calls: z
    .array(
      z.strictObject({
        /** Left out: the call is sent without an `id` (some local servers do). */
        id: z.string().optional(),
        name: z.string().min(1),
        arguments: z.union([z.string(), z.record(z.string(), z.unknown())]),
        /** Send object `arguments` as a JSON object, not a JSON text (llama.cpp, TGI). */
        arguments_as_object: z.boolean().optional(),
      }),
    )
    .optional(),
  usage: z
    .strictObject({ prompt_tokens: z.number().int().min(0), completion_tokens: z.number().int().min(0) })
    .optional(),
  /** Answer with this HTTP status and an OpenAI-style error body instead of a completion. */
  error: z.number().int().min(400).max(599).optional(),
  /** With `error`: the provider's own error body fields (e.g. DashScope's "thinking needs streaming"). */
  error_type: z.string().optional(),
  error_code: z.string().optional(),
  error_message: z.string().optional(),
  /** With `error`: a `Retry-After` header, as delta-seconds ("2") or an HTTP date. */
  retry_after: z.string().optional(),
  /**
   * The body sent verbatim, any shape (a JSON value, or a string sent as text): with `error`, the error
   * body in a provider's own shape (Gemini's array, vLLM's top-level message); without it, an HTTP 200
   * whose body is this instead of a completion (gateways' `{"error":…}`).
   */
  body: z.unknown().optional(),
  /** Extra response headers (retry-after-ms, x-ratelimit-reset-*). */
  headers: z.record(z.string(), z.string()).optional(),
  /** Leave `usage` out of the completion, as some OpenAI-compatible servers do. */
  omit_usage: z.boolean().optional(),
  /** Wait this long before answering (the wait ends early if the client goes away). */
  delay_ms: z.number().int().min(0).max(600_000).optional(),
  finish_reason: z.string().optional(),
  /** Answer with this reply whenever the last user message matches this regex (case-insensitive); not consumed. */
  match: z.string().optional(),
  /**
   * Test `match` against one field of the last user message read as JSON (a path as in `template`,
   * e.g. `query`) instead of the whole message, so a router script is not misled by other fields.
   */
  match_path: z.string().min(1).optional(),
  /**
   * `content` is a template filled from the last user message read as JSON: `{{path}}` becomes the JSON
   * of the value at `path` (`evidence[].document_id` maps over an array, `evidence.0.title` indexes),
   * `{{path|text}}` its text (array items joined by "; ") escaped to sit inside a JSON string.
   */
  template: z.boolean().optional(),
  /** Answer with this reply when the request already holds this many assistant messages (0 = first turn); not consumed. Keeps concurrent agent runs apart. */
  turn: z.number().int().min(0).optional(),
});

export const stubScriptSchema = z.strictObject({
  /** role name (the `<!-- role: NAME -->` first line of the system message) -> replies, handed out in order */
  roles: z.record(z.string().min(1), z.array(stubReplySchema)),
  /** Start a role's list again when it is used up (the demo); otherwise an exhausted role answers HTTP 500. */
  repeat: z.boolean().optional(),
  /** Which real provider's rules the server enforces (provider-profiles.ts); default deepseek-thinking. */
  profile: z.enum(PROVIDER_PROFILES).optional(),
  /** The only accepted `Authorization: Bearer` key; any other gets OpenAI's 401 invalid_api_key. */
  api_key: z.string().min(1).optional(),
  /**
   * How the server numbers tool call ids: `scripted` (default) sends the script's ids; `per-response`
   * sends `call_0`, `call_1`, … restarting in every response (so turn 2 reuses turn 1's ids); `repeated`
   * gives every call of a response `call_0` (a duplicate inside one turn, and across turns).
   */
  tool_call_ids: z.enum(['scripted', 'per-response', 'repeated']).optional(),
  /** Served by `GET /v1/models`; a completion for any other model gets OpenAI's 404 model_not_found. */
  models: z.array(z.string().min(1)).optional(),
});

export type StubReply = z.infer<typeof stubReplySchema>;
export type StubScript = z.infer<typeof stubScriptSchema>;

export function parseStubScript(value: unknown): StubScript {
  const parsed = stubScriptSchema.safeParse(value);
  if (!parsed.success) {
    throw new Error(
      `invalid stub script: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
    );
  }
  return parsed.data;
}

/**
 * Hands out a script's replies: a reply whose `match` and `turn` fit the request wins (not consumed);
 * otherwise each role's unconditional replies in order. The stub server and the in-process fake chat
 * model (test/support/fake-chat-model.ts) share it, so one script means the same in both.
 */
export class StubScriptPlayer {
  private readonly cursors = new Map<string, number>();

  constructor(readonly script: StubScript) {}

  next(role: string, userText: string, turn: number): StubReply | undefined {
    const all = this.script.roles[role] ?? [];
    const matched = all.find(
      (reply) =>
        (reply.match !== undefined || reply.turn !== undefined) &&
        (reply.match === undefined ||
          new RegExp(reply.match, 'i').test(
            reply.match_path === undefined ? userText : textAt(userText, reply.match_path),
          )) &&
        (reply.turn === undefined || reply.turn === turn),
    );
    if (matched) return matched;
    const replies = all.filter((reply) => reply.match === undefined && reply.turn === undefined);
    const cursor = this.cursors.get(role) ?? 0;
    if (cursor >= replies.length && !(this.script.repeat && replies.length > 0)) return undefined;
    this.cursors.set(role, cursor + 1);
    return replies[cursor % replies.length];
  }
}
