/**
 * Reads a fetch response's body as UTF-8 up to `maxBytes`; beyond that the download is cancelled
 * instead of buffered, and the answer is null. Shared by every evidence client that reads HTTP bodies
 * from a server it does not control (Prometheus, MCP over HTTP).
 */
export async function readCapped(response: Response, maxBytes: number): Promise<string | null> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return null;
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  return Buffer.concat(chunks).toString('utf8');
}
