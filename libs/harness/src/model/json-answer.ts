import JSON5 from 'json5';

const WHOLE_FENCE = /^\s*```[ \t]*(?:json)?[ \t]*\r?\n([\s\S]*?)\r?\n[ \t]*```\s*$/i;
const FENCE = /```[ \t]*(?:json)?[ \t]*\r?\n([\s\S]*?)\r?\n[ \t]*```/gi;

const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Full-width structural punctuation, as Chinese input methods type it, and its JSON form. */
const FULL_WIDTH: Record<string, string> = {
  '：': ':',
  '，': ',',
  '｛': '{',
  '｝': '}',
  '［': '[',
  '］': ']',
};

/**
 * The text with full-width JSON punctuation outside strings made ASCII: `“…”` as string quotes,
 * `：` `，` `｛｝` `［］` as structure. Text inside a string is kept exactly (a `：` there is content).
 */
export function asciiStructure(text: string): string {
  let out = '';
  let close: string | null = null;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (close === null) {
      if (char === '"' || char === "'") close = char;
      else if (char === '“') {
        out += '"';
        close = '”';
        continue;
      }
      out += FULL_WIDTH[char] ?? char;
    } else if (char === '\\' && close !== '”') {
      out += char + (text[index + 1] ?? '');
      index += 1;
    } else if (char === close) {
      out += close === '”' ? '"' : char;
      close = null;
    } else out += close === '”' && char === '"' ? '\\"' : char;
  }
  return out;
}

/**
 * A JSON value, read strictly first; an object is also read as JSON5 (comments, trailing commas, single
 * quotes, bare keys) with full-width punctuation made ASCII, the forms models write when asked for JSON.
 * A truncated or otherwise broken text stays unread: nothing is guessed.
 */
function parse(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text.trim()) as unknown };
  } catch {
    try {
      const value: unknown = JSON5.parse(asciiStructure(text.trim()));
      return isObject(value) ? { value } : undefined;
    } catch {
      return undefined;
    }
  }
}

/** Length of the balanced `{…}` at the start of `text` (strings and escapes respected), or 0. */
function leadingObjectLength(text: string): number {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') depth += 1;
    else if (char === '}' && --depth === 0) return index + 1;
  }
  return 0;
}

/**
 * The JSON value a model answered with, by the first rule that applies (callers validate the shape):
 * 1. the whole text is JSON;
 * 2. the whole text is one fenced block (```json or ```) holding JSON;
 * 3. prose around fenced blocks, exactly one of which holds a JSON object: that object;
 * 4. the text starts with a JSON object followed by a remark with no `{` and no fence: that object;
 * 5. prose with no brace and no fence, then such an object (e.g. "结论如下：\n{…}"): that object.
 * Anything else (no JSON, two candidate objects, a remark that might hold more JSON) is ambiguous
 * and returns undefined, which sends the answer to the caller's repair path.
 */
export function parseJsonAnswer(text: string): unknown {
  const whole = parse(text);
  if (whole) return whole.value;
  const onlyFence = WHOLE_FENCE.exec(text);
  const inFence = onlyFence ? parse(onlyFence[1]) : undefined;
  if (inFence) return inFence.value;
  const fenced = [...text.matchAll(FENCE)].map((match) => parse(match[1]));
  const objects = fenced.filter((candidate) => candidate && isObject(candidate.value));
  if (objects.length === 1) return objects[0]!.value;
  if (fenced.length > 0) return undefined;
  // Rule 5: prose without braces, then the object (and at most a remark without braces).
  const start = text.indexOf('{');
  if (start < 0 || text.slice(0, start).includes('}')) return undefined;
  const trimmed = text.slice(start);
  const length = leadingObjectLength(trimmed);
  const remark = trimmed.slice(length);
  if (length === 0 || remark.includes('{') || remark.includes('```')) return undefined;
  const leading = parse(trimmed.slice(0, length));
  return leading && isObject(leading.value) ? leading.value : undefined;
}

/**
 * Every JSON object the text holds at the top level, left to right (fenced or not): each `{` outside an
 * object already taken starts a candidate, kept when its balanced `{…}` parses. Not a reading of the
 * answer (that is `parseJsonAnswer`, which refuses ambiguity); it lets a check compare a repaired draft
 * with what the model wrote by value when the original answer was too ambiguous to read.
 */
export function jsonObjectsIn(text: string): Record<string, unknown>[] {
  const objects: Record<string, unknown>[] = [];
  for (let start = text.indexOf('{'); start >= 0;) {
    const length = leadingObjectLength(text.slice(start));
    const candidate = length > 0 ? parse(text.slice(start, start + length)) : undefined;
    if (candidate && isObject(candidate.value)) {
      objects.push(candidate.value as Record<string, unknown>);
      start = text.indexOf('{', start + length);
    } else start = text.indexOf('{', start + 1);
  }
  return objects;
}
