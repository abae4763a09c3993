/** The UI's pages, addressed by the URL hash so the server only ever serves `/`. */
/**
 * `reference` deep-links a report's reference and the tool call behind it: on the runs page it marks
 * that call in the run's trace, on the chat page it opens the reference in the answer of `runId`.
 */
export type Route =
  | { page: 'chat'; runId?: string; reference?: number }
  | { page: 'runs'; sessionId: string | null; runId: string | null; reference?: number }
  | { page: 'documents' };

const referenceOf = (part: string | undefined): number | undefined =>
  part && /^[1-9]\d{0,3}$/.test(part) ? Number(part) : undefined;

const decode = (part: string | undefined): string | null => {
  if (!part) return null;
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
};

export function parseRoute(hash: string): Route {
  const [page, first, second, third] = hash.replace(/^#\/?/, '').split('/');
  switch (page) {
    case 'runs': {
      const sessionId = decode(first);
      const runId = sessionId ? decode(second) : null;
      const reference = runId ? referenceOf(third) : undefined;
      return reference ? { page: 'runs', sessionId, runId, reference } : { page: 'runs', sessionId, runId };
    }
    case 'documents':
      return { page: 'documents' };
    default: {
      const runId = page === 'chat' ? decode(first) : null;
      const reference = runId ? referenceOf(second) : undefined;
      return runId && reference ? { page: 'chat', runId, reference } : { page: 'chat' };
    }
  }
}

export function hrefOf(route: Route): string {
  switch (route.page) {
    case 'chat':
      return route.runId && route.reference
        ? `#/chat/${encodeURIComponent(route.runId)}/${route.reference}`
        : '#/chat';
    case 'documents':
      return '#/documents';
    case 'runs':
      return [
        '#/runs',
        route.sessionId,
        route.sessionId ? route.runId : null,
        route.sessionId && route.runId && route.reference ? String(route.reference) : null,
      ]
        .filter((part): part is string => Boolean(part))
        .map((part, index) => (index === 0 ? part : encodeURIComponent(part)))
        .join('/');
  }
}
