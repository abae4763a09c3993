import type { ServiceDatabaseState } from '@app/trace';
import type { DoctorFinding } from '../../../doctor-finding';
import type { KnowledgeBackendDefinition } from '../../knowledge-backend';
import { EmbeddedKnowledgeSearch } from './embedded-knowledge-search';

const UPLOAD_FIX =
  "upload runbooks (Markdown or text): curl -X POST http://HOST:PORT/api/documents/upload -H 'x-api-key: <a knowledge_admin key>' -F file=@runbook.md -F title='Runbook title', or the web UI's Documents page";

/** `npm run doctor` for the embedded index: an empty knowledge base is allowed, but then no runbook is found. */
export function checkEmbeddedKnowledge(state: ServiceDatabaseState | null): DoctorFinding[] {
  const check = 'knowledge base';
  if (state === null || state.documents === null) {
    return [
      {
        check,
        verdict: 'WARN',
        message: 'not counted: the service database is not reachable or not migrated yet',
        fix: 'fix the service database first',
      },
    ];
  }
  const { INDEXED: indexed, FAILED: failed, PENDING: pending } = state.documents;
  const findings: DoctorFinding[] = [];
  if (indexed === 0) {
    findings.push({
      check,
      verdict: 'WARN',
      message: `the knowledge base is empty${pending + failed > 0 ? ` (${pending} pending, ${failed} failed)` : ''}: lookup_knowledge finds no runbook until you upload some`,
      fix: UPLOAD_FIX,
    });
  } else {
    findings.push({ check, verdict: 'OK', message: `${indexed} document(s) indexed` });
  }
  if (failed > 0 && indexed > 0) {
    findings.push({
      check,
      verdict: 'WARN',
      message: `${failed} document(s) failed to index`,
      fix: 'GET /api/documents/status/FAILED lists them; upload them again',
    });
  }
  return findings;
}

/** KNOWLEDGE_BACKEND=embedded (the default): the in-process BM25 index over the service database. */
export const EMBEDDED_KNOWLEDGE_BACKEND: KnowledgeBackendDefinition = {
  kind: 'embedded',
  summary:
    'the in-process BM25 index over the runbooks uploaded to the service database ([knowledge.md](knowledge.md))',
  envClass: null,
  configFix: 'set KNOWLEDGE_BACKEND',
  configure: () => ({
    kind: 'embedded',
    create: (deps) => new EmbeddedKnowledgeSearch(deps.knowledge),
    doctorCheck: async (state) => checkEmbeddedKnowledge(state),
  }),
};
