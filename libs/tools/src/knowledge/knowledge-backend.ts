import type { KnowledgeRepository, ServiceDatabaseState } from '@app/trace';
import type { BackendDefinition } from '../backends/backend-registry';
import type { DoctorFinding } from '../doctor-finding';
import type { KnowledgeSearchPort } from './knowledge-search.port';

/** What the service gives a knowledge backend at start-up. */
export interface KnowledgeBackendDeps {
  /** The service database's knowledge tables (the uploaded documents and their chunks). */
  knowledge: KnowledgeRepository;
}

/** A knowledge backend with its settings read and checked: what start-up and `npm run doctor` ask of it. */
export interface ConfiguredKnowledgeBackend {
  readonly kind: string;
  create(deps: KnowledgeBackendDeps): KnowledgeSearchPort;
  /** Its lines in `npm run doctor` (check name `knowledge base`); `state` is null when the database is not reachable. */
  doctorCheck(state: ServiceDatabaseState | null): Promise<DoctorFinding[]>;
}

/** One KNOWLEDGE_BACKEND value (docs/backends.md): its folder under knowledge/backends/, one line in KNOWLEDGE_BACKENDS. */
export type KnowledgeBackendDefinition = BackendDefinition<ConfiguredKnowledgeBackend>;
