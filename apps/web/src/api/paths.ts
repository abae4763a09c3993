import type { DocumentStatus } from '@app/contracts';

const part = encodeURIComponent;

/** The service endpoints the UI calls (docs/api-and-sse.md). */
export const paths = {
  sessions: (limit: number, cursor: string | null, scope: 'own' | 'alert' = 'own') =>
    `/api/diagnosis/sessions?limit=${limit}${scope === 'alert' ? '&scope=alert' : ''}${cursor ? `&cursor=${part(cursor)}` : ''}`,
  trace: (sessionId: string, runId?: string) =>
    `/api/diagnosis/${part(sessionId)}/trace${runId ? `?runId=${part(runId)}` : ''}`,
  sessionRuns: (sessionId: string, limit: number, cursor: string | null) =>
    `/api/diagnosis/${part(sessionId)}/trace?limit=${limit}${cursor ? `&cursor=${part(cursor)}` : ''}`,
  reasoning: (sessionId: string, runId: string) =>
    `/api/diagnosis/${part(sessionId)}/trace/reasoning?runId=${part(runId)}`,
  documentsByStatus: (status: DocumentStatus, limit: number, cursor: string | null) =>
    `/api/documents/status/${status}?limit=${limit}${cursor ? `&cursor=${part(cursor)}` : ''}`,
  document: (documentId: string) => `/api/documents/${part(documentId)}`,
  documentChunks: (documentId: string) => `/api/documents/${part(documentId)}/chunks`,
  upload: '/api/documents/upload',
};
