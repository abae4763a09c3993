import { IsIn } from 'class-validator';
import { EnvSection, validateEnv } from '@app/config';
import type { ServiceDatabaseState } from '@app/trace';
import {
  configureForDoctor,
  configureSelected,
  definitionOf,
  EnvSource,
  kindsOf,
} from '../backends/backend-registry';
import type { DoctorFinding } from '../doctor-finding';
import { EMBEDDED_KNOWLEDGE_BACKEND } from './backends/embedded/embedded-knowledge-backend';
import { PYRAG_KNOWLEDGE_BACKEND } from './backends/pyrag/pyrag-knowledge-backend';
import type { ConfiguredKnowledgeBackend, KnowledgeBackendDefinition } from './knowledge-backend';

/** Every knowledge backend: a new one is its folder under knowledge/backends/ and one line here. */
export const KNOWLEDGE_BACKENDS: readonly KnowledgeBackendDefinition[] = [
  EMBEDDED_KNOWLEDGE_BACKEND,
  PYRAG_KNOWLEDGE_BACKEND,
];

@EnvSection('tools', 'Knowledge backend selection')
export class KnowledgeBackendSelectionEnv {
  /** Where lookup_knowledge searches (docs/backends.md). */
  @IsIn(kindsOf(KNOWLEDGE_BACKENDS)) KNOWLEDGE_BACKEND: string = 'embedded';
}

function selectedKnowledgeBackend(source: EnvSource): KnowledgeBackendDefinition {
  return definitionOf(
    KNOWLEDGE_BACKENDS,
    'KNOWLEDGE_BACKEND',
    validateEnv(KnowledgeBackendSelectionEnv, source).KNOWLEDGE_BACKEND,
  );
}

/** The KNOWLEDGE_BACKEND selected, configured; throws ConfigValidationError naming every bad key. */
export function configureKnowledgeBackend(source: EnvSource = process.env): ConfiguredKnowledgeBackend {
  return configureSelected(KNOWLEDGE_BACKENDS, selectedKnowledgeBackend(source), source);
}

/** `npm run doctor`'s `knowledge base` lines: the selected backend's own check, or what to fix in its keys. */
export async function checkKnowledgeBackend(
  state: ServiceDatabaseState | null,
  source: EnvSource = process.env,
): Promise<DoctorFinding[]> {
  const configured = configureForDoctor(
    'knowledge base',
    'KNOWLEDGE_BACKEND',
    () => selectedKnowledgeBackend(source),
    source,
  );
  return 'failure' in configured ? [configured.failure] : configured.backend.doctorCheck(state);
}
