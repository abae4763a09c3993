/** What the service tells its operator once it listens: where, and what would make every request fail. */
export function startupNotices(state: { url: string; apiKeyCount: number }): {
  info: string[];
  warnings: string[];
} {
  return {
    info: [`Listening on ${state.url} (web UI at /, OpenAPI at /api/docs, health at /health)`],
    warnings:
      state.apiKeyCount === 0
        ? [
            'No API key is configured: every request except /health and /api/docs will be refused with 401. Set API_KEYS (see docs/getting-started-own-data.md).',
          ]
        : [],
  };
}
