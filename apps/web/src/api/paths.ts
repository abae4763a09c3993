import type { DocumentStatus } from '@app/contracts';

const part = encodeURIComponent;

/** The service endpoints the UI calls (README "HTTP API"). */
export const paths = {
  sessions: (limit: number, cursor: string | null) =>
    `/api/diagnosis/sessions?limit=${limit}${cursor ? `&cursor=${part(cursor)}` : ''}`,
  trace: (sessionId: string, runId?: string) =>
    `/api/diagnosis/${part(sessionId)}/trace${runId ? `?runId=${part(runId)}` : ''}`,
  reasoning: (sessionId: string, runId: string) =>
    `/api/diagnosis/${part(sessionId)}/trace/reasoning?runId=${part(runId)}`,
  documentsByStatus: (status: DocumentStatus, limit: number, cursor: string | null) =>
    `/api/documents/status/${status}?limit=${limit}${cursor ? `&cursor=${part(cursor)}` : ''}`,
  document: (documentId: string) => `/api/documents/${part(documentId)}`,
  documentChunks: (documentId: string) => `/api/documents/${part(documentId)}/chunks`,
  upload: '/api/documents/upload',
};
