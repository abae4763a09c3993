/** What the service tells its operator once it listens: where, and what would make requests fail. */
export function startupNotices(state: {
  url: string;
  apiKeyCount: number;
  /** The listen backlog the server asked for. */
  backlog: number;
  /** net.core.somaxconn, the kernel's cap on it; null where it cannot be read. */
  somaxconn: number | null;
}): {
  info: string[];
  warnings: string[];
} {
  const warnings: string[] = [];
  if (state.apiKeyCount === 0) {
    warnings.push(
      'No API key is configured: every request except /health and /api/docs will be refused with 401. Set API_KEYS (see docs/getting-started-own-data.md).',
    );
  }
  if (state.somaxconn === null) {
    warnings.push(
      `Listen backlog ${state.backlog}: /proc/sys/net/core/somaxconn could not be read, so the kernel's cap on it is unknown (docs/operations-capacity.md).`,
    );
  } else if (state.somaxconn < state.backlog) {
    warnings.push(
      `Listen backlog ${state.backlog} is capped by the kernel at net.core.somaxconn = ${state.somaxconn}: a burst of connections beyond that is dropped before the service sees it. Raise it (sysctl net.core.somaxconn=${state.backlog}) or lower CHAT_MAX_IN_FLIGHT/CHAT_MAX_QUEUE (docs/operations-capacity.md).`,
    );
  }
  return {
    info: [
      `Listening on ${state.url} (web UI at /, OpenAPI at /api/docs, health at /health) with listen backlog ${state.backlog}`,
    ],
    warnings,
  };
}
