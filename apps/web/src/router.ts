/** The UI's pages, addressed by the URL hash so the server only ever serves `/`. */
export type Route =
  { page: 'chat' } | { page: 'runs'; sessionId: string | null; runId: string | null } | { page: 'documents' };

const decode = (part: string | undefined): string | null => {
  if (!part) return null;
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
};

export function parseRoute(hash: string): Route {
  const [page, first, second] = hash.replace(/^#\/?/, '').split('/');
  switch (page) {
    case 'runs': {
      const sessionId = decode(first);
      return { page: 'runs', sessionId, runId: sessionId ? decode(second) : null };
    }
    case 'documents':
      return { page: 'documents' };
    default:
      return { page: 'chat' };
  }
}

export function hrefOf(route: Route): string {
  switch (route.page) {
    case 'chat':
      return '#/chat';
    case 'documents':
      return '#/documents';
    case 'runs':
      return ['#/runs', route.sessionId, route.sessionId ? route.runId : null]
        .filter((part): part is string => Boolean(part))
        .map((part, index) => (index === 0 ? part : encodeURIComponent(part)))
        .join('/');
  }
}
