import type { EvidenceToolDefinition } from '../evidence-tool';
import { lookupKnowledgeConfig } from './lookup-knowledge.config';
import { lookupKnowledgeTool } from './lookup-knowledge.tool';

export const LOOKUP_KNOWLEDGE_EVIDENCE_TOOL: EvidenceToolDefinition = {
  name: 'lookup_knowledge',
  summary: 'searches the runbooks of the KNOWLEDGE_BACKEND',
  config: lookupKnowledgeConfig,
  create: (deps) => lookupKnowledgeTool(deps.knowledge, deps.limitsOf(lookupKnowledgeConfig)),
};
