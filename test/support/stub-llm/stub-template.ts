/** Request-driven replies of the stub LLM: values picked from the last user message read as JSON. */
function parseJsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** The value at a dotted path; a `name[]` segment maps the rest of the path over that array. */
export function valueAt(value: unknown, path: string): unknown {
  const [head, ...rest] = path.split('.');
  if (head === undefined || head === '') return value;
  const many = head.endsWith('[]');
  const key = many ? head.slice(0, -2) : head;
  const next =
    value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  if (many) return Array.isArray(next) ? next.map((item) => valueAt(item, rest.join('.'))) : [];
  return rest.length > 0 ? valueAt(next, rest.join('.')) : next;
}

function asText(value: unknown): string {
  if (Array.isArray(value)) return value.map(asText).join('; ');
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function textAt(userText: string, path: string): string {
  return asText(valueAt(parseJsonOrNull(userText), path));
}

/** Fills `{{path}}` (JSON) and `{{path|text}}` (escaped text) from the user message read as JSON. */
export function fillTemplate(template: string, userText: string): string {
  const input = parseJsonOrNull(userText);
  return template.replace(/\{\{\s*([^}|\s]+)\s*(\|\s*text\s*)?\}\}/g, (_all, path: string, text?: string) => {
    const value = valueAt(input, path);
    return text ? JSON.stringify(asText(value)).slice(1, -1) : (JSON.stringify(value) ?? 'null');
  });
}
