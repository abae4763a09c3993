import { ConfigValidationError } from '@app/config';
import type { KnowledgeRepository, ServiceDatabaseState } from '@app/trace';
import { checkKnowledgeBackend, configureKnowledgeBackend, KNOWLEDGE_BACKENDS } from './knowledge-backends';
import { KnowledgeSearchPort } from './knowledge-search.port';

// Built, never loaded: the embedded index reads its repository only when the application boots.
const DEPS = { knowledge: {} as KnowledgeRepository };

describe('KNOWLEDGE_BACKENDS', () => {
  it('lists each kind once', () => {
    const kinds = KNOWLEDGE_BACKENDS.map((backend) => backend.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
  });

  it.each(KNOWLEDGE_BACKENDS.map((backend) => [backend.kind]))(
    'builds KNOWLEDGE_BACKEND=%s: an adapter of its own kind, and its doctor lines',
    async (kind) => {
      const backend = configureKnowledgeBackend({ KNOWLEDGE_BACKEND: kind });
      const search = backend.create(DEPS);
      expect(search).toBeInstanceOf(KnowledgeSearchPort);
      expect(search.backend).toBe(kind);
      const findings = await checkKnowledgeBackend(null, { KNOWLEDGE_BACKEND: kind });
      expect(findings.every((finding) => finding.check === 'knowledge base')).toBe(true);
    },
  );

  it.each([['bm25'], ['PYRAG']])('refuses KNOWLEDGE_BACKEND=%s naming the key and the kinds', (kind) => {
    expect(() => configureKnowledgeBackend({ KNOWLEDGE_BACKEND: kind })).toThrow(ConfigValidationError);
    expect(() => configureKnowledgeBackend({ KNOWLEDGE_BACKEND: kind })).toThrow(
      'KNOWLEDGE_BACKEND must be one of the following values: embedded, pyrag',
    );
  });

  it.each([
    ['the selected backend', { KNOWLEDGE_BACKEND: 'pyrag', PYRAG_TIMEOUT_MS: '5' }, 'PYRAG_TIMEOUT_MS'],
    [
      'a backend not selected',
      { KNOWLEDGE_BACKEND: 'embedded', PYRAG_BASE_URL: 'not a url' },
      'PYRAG_BASE_URL',
    ],
  ])('refuses a bad key of %s, naming it', (_name, env, key) => {
    expect(() => configureKnowledgeBackend(env)).toThrow(key);
  });

  const documents = (INDEXED: number, PENDING: number, FAILED: number): ServiceDatabaseState => ({
    pendingMigrations: [],
    documents: { INDEXED, PENDING, FAILED },
  });

  it.each<[Record<string, string>, ServiceDatabaseState | null, string, string]>([
    [{ KNOWLEDGE_BACKEND: 'pyrag' }, null, 'OK', 'served by py-rag at http://127.0.0.1:8000'],
    [{}, null, 'WARN', 'not counted'],
    [{}, documents(0, 1, 0), 'WARN', 'empty (1 pending, 0 failed)'],
    [{}, documents(2, 0, 0), 'OK', '2 document(s) indexed'],
    [{ KNOWLEDGE_BACKEND: 'nope' }, null, 'FAIL', 'KNOWLEDGE_BACKEND'],
  ])('doctor: %j over %j is %s (%s)', async (env, state, verdict, text) => {
    const [finding] = await checkKnowledgeBackend(state, env);
    expect(finding.verdict).toBe(verdict);
    expect(finding.message).toContain(text);
  });
});
