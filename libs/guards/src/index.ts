export { GuardsModule } from './guards.module';
export type { VerifiedSnapshot } from './evidence-rules';
export { EvidenceGuard } from './evidence-guard';
export { SemanticGuard } from './semantic-guard';
export { KnowledgeGuard } from './knowledge-guard';
export { checkDraftRelease, findReleaseViolations } from './release-checks';
export { checkGrounding, groundingDetails } from './grounding-check';
export { fallbackReport, MOCK_SCOPE_NOTE, releaseReport } from './release-policy';
export type { DiagnosisReport, Fallback, FallbackType } from './release-policy';
