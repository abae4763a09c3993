/**
 * The JSON value a model answered with: the whole text, or the body of one ```json fence around it.
 * Returns undefined when it is not JSON; callers validate the shape themselves.
 */
export function parseJsonAnswer(text: string): unknown {
  const body = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text)?.[1] ?? text;
  try {
    return JSON.parse(body.trim()) as unknown;
  } catch {
    return undefined;
  }
}
