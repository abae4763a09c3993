export { GuardsModule } from './guards.module';
export { draftSchema, parseDraft } from './draft.schema';
export type { Draft, DraftParse } from './draft.schema';
export { checkEvidence } from './evidence-rules';
export type { AnalysisEvidence, EvidenceCheck, VerifiedSnapshot } from './evidence-rules';
export { EvidenceGuard } from './evidence-guard';
export type { GuardedDraft } from './evidence-guard';
export { SemanticGuard, reviewInput } from './semantic-guard';
export { KnowledgeGuard } from './knowledge-guard';
export type { CitedExcerpt, KnowledgeDraft, KnowledgeReview } from './knowledge-guard';
export type { SemanticOutcome, SemanticVerdict } from './semantic-guard';
export {
  changesSystems,
  checkDraftRelease,
  enforceHumanConfirmation,
  findReleaseViolations,
  RELEASE_VIOLATIONS,
} from './release-checks';
export type { CitedEvidence, DraftReleaseCheck, ReleaseViolation } from './release-checks';
export {
  FALLBACK_TYPES,
  fallbackReport,
  MOCK_SCOPE_NOTE,
  releasedScope,
  releaseReport,
} from './release-policy';
export type { DiagnosisReport, Fallback, FallbackType, PublishLimits, Reference } from './release-policy';
export type { VerifiedEvidence } from './verified-evidence';
