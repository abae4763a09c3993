/**
 * Connection settings of the real services the e2e suite uses. Read when used (getters): the global
 * setup sets TEST_MYSQL_PORT etc. after Testcontainers started the services.
 */
export const TEST_MYSQL = {
  get host(): string {
    return process.env.TEST_MYSQL_HOST ?? '127.0.0.1';
  },
  get port(): number {
    return Number(process.env.TEST_MYSQL_PORT ?? 3306);
  },
  get user(): string {
    return process.env.TEST_MYSQL_USER ?? 'root';
  },
  get password(): string {
    return process.env.TEST_MYSQL_PASSWORD ?? '';
  },
};
export const TEST_REDIS = {
  get host(): string {
    return process.env.TEST_REDIS_HOST ?? '127.0.0.1';
  },
  get port(): number {
    return Number(process.env.TEST_REDIS_PORT ?? 6379);
  },
};

/** API keys of the e2e run (set as API_KEYS by the global setup). */
export const TEST_KEYS = {
  chat: 'e2e-chat-only-key-00001',
  traceReader: 'e2e-trace-reader-key-0001',
  auditor: 'e2e-auditor-key-000001',
  /** auditor alone, without trace_reader: reads every session's trace and the reasoning audit. */
  auditorOnly: 'e2e-auditor-only-key-0001',
  knowledgeAdmin: 'e2e-knowledge-admin-key-01',
  /** chat and trace_reader, used by test/trace-api only: its session list holds only that file's sessions. */
  sessionOwner: 'e2e-session-owner-key-001',
  /** chat, knowledge_admin and trace_reader: what an SRE using the web UI holds. */
  operator: 'e2e-operator-key-0000001',
  /** metrics_read alone: what Prometheus scrapes GET /metrics with. */
  metrics: 'e2e-metrics-read-key-0001',
  /** alert_ingest alone: Alertmanager's key for POST /api/alerts/alertmanager. */
  alertIngest: 'e2e-alert-ingest-key-0001',
};

/** fetch with the chat-role key, for the chat endpoint and reading documents. */
export function chatFetch(url: string, init: RequestInit = {}): Promise<Response> {
  return keyFetch(TEST_KEYS.chat, url, init);
}

/** fetch with the knowledge_admin key, for uploading and deleting documents. */
export function adminFetch(url: string, init: RequestInit = {}): Promise<Response> {
  return keyFetch(TEST_KEYS.knowledgeAdmin, url, init);
}

export function keyFetch(key: string, url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), 'x-api-key': key } });
}
