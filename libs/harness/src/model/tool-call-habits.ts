import { AIMessage } from '@langchain/core/messages';
import type { ToolCall } from '@langchain/core/messages/tool';
import { parseJsonAnswer } from './json-answer';

/**
 * Tool calls as models really send them, made into the calls the ReAct loop runs
 * (docs/provider-failures.md "Habits"):
 * - written as text in the content by a server started without a tool parser: Hermes/Qwen
 *   `<tool_call>{…}</tool_call>`, Mistral `[TOOL_CALLS][{…}]` or `[TOOL_CALLS]name[ARGS]{…}`, Llama
 *   `<|python_tag|>{"name":…,"parameters":{…}}`;
 * - a name with a `functions.` prefix (gpt-oss) or in another case than the tool's;
 * - no id (assigned here, run-unique).
 * A marker whose calls cannot be read is reported as unreadable, never guessed.
 */

export type TextToolCallFormat = 'hermes' | 'mistral' | 'llama';

export type TextToolCalls =
  | { kind: 'calls'; format: TextToolCallFormat; calls: { name: string; args: Record<string, unknown> }[] }
  | { kind: 'unreadable'; format: TextToolCallFormat };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** One call object as the formats write it: `name` plus `arguments` or `parameters` (object or JSON text). */
function callOf(value: unknown): { name: string; args: Record<string, unknown> } | null {
  const item = isRecord(value) && isRecord(value.function) ? value.function : value;
  if (!isRecord(item) || typeof item.name !== 'string' || item.name.trim() === '') return null;
  const raw = item.arguments ?? item.parameters ?? {};
  const args = typeof raw === 'string' ? parseJsonAnswer(raw) : raw;
  return isRecord(args) ? { name: item.name.trim(), args } : null;
}

/** Every call in a JSON text holding one call object or an array of them; null when any is unreadable. */
function callsOf(text: string): { name: string; args: Record<string, unknown> }[] | null {
  const trimmed = text.trim();
  const value = trimmed.startsWith('[') ? parsedArray(trimmed) : parseJsonAnswer(trimmed);
  const items = Array.isArray(value) ? value : [value];
  const calls = items.map(callOf);
  return calls.length > 0 && calls.every((call) => call !== null)
    ? (calls as { name: string; args: Record<string, unknown> }[])
    : null;
}

function parsedArray(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const HERMES = /<tool_call>([\s\S]*?)<\/tool_call>/g;
const MISTRAL = '[TOOL_CALLS]';
const MISTRAL_ARGS = /^\s*([A-Za-z0-9_.-]+)\s*\[ARGS\]([\s\S]*)$/;
const LLAMA = '<|python_tag|>';

/** The tool calls a reply wrote as text, or null when its content holds none of the known markers. */
export function toolCallsInText(content: string): TextToolCalls | null {
  if (content.includes('<tool_call>')) {
    const blocks = [...content.matchAll(HERMES)].map((match) => callsOf(match[1]));
    if (blocks.length === 0 || blocks.some((calls) => calls === null))
      return { kind: 'unreadable', format: 'hermes' };
    return {
      kind: 'calls',
      format: 'hermes',
      calls: blocks.flat() as { name: string; args: Record<string, unknown> }[],
    };
  }
  const mistral = content.indexOf(MISTRAL);
  if (mistral >= 0) {
    const after = content.slice(mistral + MISTRAL.length);
    // Newer templates: one `[TOOL_CALLS]name[ARGS]{…}` per call.
    const segments = after.split(MISTRAL);
    const named = segments.map((segment) => MISTRAL_ARGS.exec(segment));
    const calls = named.every((match) => match !== null)
      ? named.map((match) => callOf({ name: match![1], arguments: match![2].trim() }))
      : callsOf(after);
    if (calls === null || calls.some((call) => call === null))
      return { kind: 'unreadable', format: 'mistral' };
    return {
      kind: 'calls',
      format: 'mistral',
      calls: calls as { name: string; args: Record<string, unknown> }[],
    };
  }
  const llama = content.indexOf(LLAMA);
  if (llama >= 0) {
    // Several calls may follow one tag, separated by `;`.
    const parts = content
      .slice(llama + LLAMA.length)
      .replace(/<\|(eom_id|eot_id)\|>\s*$/, '')
      .split(/;\s*(?=\{)/);
    const calls = parts.map((part) => callsOf(part));
    if (calls.some((call) => call === null)) return { kind: 'unreadable', format: 'llama' };
    return {
      kind: 'calls',
      format: 'llama',
      calls: calls.flat() as { name: string; args: Record<string, unknown> }[],
    };
  }
  return null;
}

/**
 * The bound tool a name means: itself, without a `functions.` prefix, or in another case, when exactly
 * one tool fits; otherwise the name as sent (the boundary answers it as an unknown tool).
 */
export function canonicalToolName(name: string, known: readonly string[]): string {
  if (known.includes(name)) return name;
  const bare = name.replace(/^(functions|function|tools)\./i, '').trim();
  if (known.includes(bare)) return bare;
  const folded = known.filter((tool) => tool.toLowerCase() === bare.toLowerCase());
  return folded.length === 1 ? folded[0] : name;
}

/** What was changed in a reply, for the run's timeline (names and counts only). */
export interface ToolCallHabitNotes {
  textFormat: TextToolCallFormat | null;
  textUnreadable: boolean;
  renamed: { from: string; to: string }[];
  assignedIds: number;
}

/**
 * The reply with textual calls turned into tool calls (their text removed from the content), names made
 * the bound tools' and missing ids assigned (`newId(index)`, which the caller makes run-unique).
 */
export function withToolCallHabits(
  message: AIMessage,
  known: readonly string[],
  newId: (index: number) => string,
): { message: AIMessage; notes: ToolCallHabitNotes } {
  const notes: ToolCallHabitNotes = { textFormat: null, textUnreadable: false, renamed: [], assignedIds: 0 };
  let calls: ToolCall[] = message.tool_calls ?? [];
  let content = message.content;
  if (calls.length === 0 && typeof content === 'string') {
    const found = toolCallsInText(content);
    if (found?.kind === 'unreadable') {
      notes.textFormat = found.format;
      notes.textUnreadable = true;
    } else if (found) {
      notes.textFormat = found.format;
      calls = found.calls.map((call) => ({ type: 'tool_call' as const, name: call.name, args: call.args }));
      content = '';
    }
  }
  const normalised = calls.map((call, index) => {
    const name = canonicalToolName(call.name, known);
    if (name !== call.name) notes.renamed.push({ from: call.name.slice(0, 64), to: name });
    const missingId = typeof call.id !== 'string' || call.id.trim() === '';
    if (missingId) notes.assignedIds += 1;
    return { ...call, name, id: missingId ? newId(index) : call.id };
  });
  const changed = notes.textFormat !== null && !notes.textUnreadable;
  if (!changed && notes.renamed.length === 0 && notes.assignedIds === 0) return { message, notes };
  // The provider's raw copy of the calls is left out: the request converter would send it instead.
  const { tool_calls: _raw, ...additional } = message.additional_kwargs ?? {};
  return {
    message: new AIMessage({
      content,
      id: message.id,
      name: message.name,
      additional_kwargs: additional,
      response_metadata: message.response_metadata,
      usage_metadata: message.usage_metadata,
      tool_calls: normalised,
      invalid_tool_calls: message.invalid_tool_calls,
    }),
    notes,
  };
}
