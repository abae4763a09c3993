/** A refused or failed HTTP request, with a message that is safe and useful to show. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/**
 * The message to show for a non-2xx answer. 4xx bodies carry the service's own validation and access
 * messages; a 5xx body is never shown, only its status.
 */
export async function errorOf(response: Response): Promise<ApiError> {
  let message: string | null = null;
  if (response.status < 500) {
    const body = (await response.json().catch(() => null)) as { message?: unknown } | null;
    const raw = body?.message;
    message = Array.isArray(raw) ? raw.map(String).join('; ') : typeof raw === 'string' ? raw : null;
  }
  if (response.status === 429) {
    const retry = response.headers.get('retry-after');
    message = `Too many requests; try again${retry ? ` in ${retry} s` : ' shortly'}.`;
  }
  if (response.status === 503) {
    const retry = response.headers.get('retry-after');
    message = `The service is busy; try again${retry ? ` in ${retry} s` : ' shortly'}.`;
  }
  return new ApiError(response.status, message ?? `The request failed (HTTP ${response.status}).`);
}

/**
 * Same-origin fetch that resolves only with a 2xx response: a refused request becomes its ApiError, an
 * unreachable service a plain message. An abort is rethrown as it is, so callers can tell a stop apart.
 */
export async function send(path: string, init: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    if (init.signal?.aborted) throw error;
    throw new ApiError(0, 'The service cannot be reached. Check that it is running.');
  }
  if (!response.ok) throw await errorOf(response);
  return response;
}

export interface ApiRequest {
  method?: 'GET' | 'POST' | 'DELETE';
  apiKey: string;
  body?: BodyInit;
  signal?: AbortSignal;
}

/** A JSON API call with the API key; resolves with the parsed body (undefined for an empty one). */
export async function apiRequest<T>(path: string, request: ApiRequest): Promise<T> {
  if (!request.apiKey) throw new ApiError(401, 'Set an API key first (API keys, top right).');
  const response = await send(path, {
    method: request.method ?? 'GET',
    headers: { 'x-api-key': request.apiKey, accept: 'application/json' },
    body: request.body,
    signal: request.signal,
  });
  if (response.status === 204 || response.headers.get('content-length') === '0') return undefined as T;
  return (await response.json()) as T;
}
