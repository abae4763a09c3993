import { allowlistPermits, EMPTY_ALLOWLIST } from './release-allowlist';
import { commandSpansBothWays } from './release-commands';
import { hiddenControlsIn, normaliseForRelease, revealHiddenControls } from './release-normalise';
import { tokensOfEveryReading } from './release-tokens';

/**
 * Evidence shown in a released answer (references, cited documents, a fallback's sources) is data, not
 * advice (docs/release-gate.md "References"): a string in it that holds a hidden character, a link, an
 * address, a contact, a path, markup or a command is shown inert and visibly marked, never as a clickable
 * or copy-ready link or command. Hidden characters become visible `⟦U+202E⟧` marks, schemes, dots and
 * at-signs are bracketed, and the string is prefixed with a mark.
 */
export const INERT_MARK = '⚠ [inert] ';

/** The label put before a reference's scope: the arguments the model chose, not evidence. */
export const MODEL_QUERY_LABEL = '模型的查询 / the model’s query: ';

const MARKUP = /<\/?[a-z!?][^<>]*>?/iu;

/** Read as the release checks read a text: every reading's tokens, and commands read and as written. */
function needsNeutralising(text: string): boolean {
  if (hiddenControlsIn(text)) return true;
  const canonical = normaliseForRelease(text);
  if (MARKUP.test(canonical)) return true;
  if (tokensOfEveryReading(text, canonical).all.some((token) => !allowlistPermits(EMPTY_ALLOWLIST, token)))
    return true;
  const commands = commandSpansBothWays(text, canonical);
  return commands.spans.length > 0 || commands.written.length > 0;
}

/** One string as released evidence shows it: unchanged when harmless, otherwise inert and marked. */
export function inertText(text: string): string {
  if (!needsNeutralising(text)) return text;
  const inert = revealHiddenControls(
    text.replace(/(?<=[\p{L}\p{N}]\p{Cf}*)[.\u3002\uff0e\uff61](?=\p{Cf}*[\p{L}\p{N}])/gu, '[.]'),
  )
    .replace(/</gu, '‹')
    .replace(/>/gu, '›')
    .replace(
      /\b([a-z][a-z0-9+.-]*):(\/\/|\\\\)/giu,
      (_whole, scheme: string, slashes: string) => `${scheme}[:]${slashes.replace(/[/\\]/gu, '∕')}`,
    )
    .replace(
      /\b(mailto|tel|sms|callto|javascript|vbscript|data|file|magnet|weixin|tg|whatsapp|skype):/giu,
      '$1[:]',
    )
    .replace(/@/gu, '[@]')
    .replace(/`/gu, 'ˋ');
  return inert.startsWith(INERT_MARK) ? inert : `${INERT_MARK}${inert}`;
}

/** Every string of a value (object keys included) as released evidence shows it. */
export function inertValues<T>(value: T): T {
  if (typeof value === 'string') return inertText(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => inertValues(item)) as T;
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [inertText(key), inertValues(item)]),
    ) as T;
  return value;
}

/** A reference's scope: the model's own arguments, labelled as such and inert. */
export function modelQueryScope(scope: string): string {
  return scope ? `${MODEL_QUERY_LABEL}${inertText(scope)}` : scope;
}
