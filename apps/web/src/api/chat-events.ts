import { CHAT_EVENT_NAMES, type ChatEvent } from '@app/contracts';
import type { SseFrame } from './sse-parser';

const EVENT_NAMES: ReadonlySet<string> = new Set(CHAT_EVENT_NAMES);

/** A chat stream frame as a typed event; frames of other names or with unreadable data are dropped. */
export function decodeChatEvent(frame: SseFrame): ChatEvent | null {
  if (!EVENT_NAMES.has(frame.event)) return null;
  try {
    const data: unknown = JSON.parse(frame.data);
    if (typeof data !== 'object' || data === null) return null;
    return { event: frame.event, data } as ChatEvent;
  } catch {
    return null;
  }
}
