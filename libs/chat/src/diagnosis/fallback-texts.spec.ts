import type { Fallback } from '@app/guards';
import type { DiagnosisFallbackReason } from './diagnosis-pipeline';
import { FALLBACK_CAUSE_TEXT, fallbackCause, FallbackCause, withCauseText } from './fallback-texts';

const MISSING_DATA = /add the missing data|补充缺失的数据/i;

describe('fallbackCause', () => {
  it.each<[DiagnosisFallbackReason, FallbackCause]>([
    ['EVIDENCE_STORE_UNAVAILABLE', 'EVIDENCE_STORE_OUTAGE'],
    ['EVIDENCE_STORE_LOST', 'EVIDENCE_STORE_OUTAGE'],
    ['EVIDENCE_VALIDATION_FAILED', 'CITATIONS_INVALID'],
    ['DRAFT_UNREADABLE', 'DRAFT_UNREADABLE'],
    ['DRAFT_EMPTY', 'EVIDENCE_INSUFFICIENT'],
    ['AGENT_LOOP_REPEATED', 'EVIDENCE_INSUFFICIENT'],
    ['RELEASE_CHECK_FAILED', 'RELEASE_CHECK_FAILED'],
    ['GROUNDING_CHECK_FAILED', 'GROUNDING_FAILED'],
    ['SEMANTIC_UNSUPPORTED', 'REVIEW_UNSUPPORTED'],
    ['SEMANTIC_INPUT_TOO_LARGE', 'REVIEW_INPUT_TOO_LARGE'],
    ['SEMANTIC_TIMEOUT', 'MODEL_UNAVAILABLE'],
    ['SEMANTIC_TRANSPORT', 'MODEL_UNAVAILABLE'],
    ['SEMANTIC_INVALID_OUTPUT', 'MODEL_UNAVAILABLE'],
    ['SEMANTIC_MODEL_UNREACHABLE', 'MODEL_UNAVAILABLE'],
    ['SEMANTIC_SEMANTIC_UNPARSABLE', 'MODEL_UNAVAILABLE'],
    ['SEMANTIC_DEADLINE_EXCEEDED', 'TIME_LIMIT'],
    ['SEMANTIC_BUDGET_MODEL_CALLS', 'BUDGET'],
    ['SEMANTIC_BUDGET_EXHAUSTED', 'BUDGET'],
    ['REPAIR_MODEL_UNREACHABLE', 'MODEL_UNAVAILABLE'],
    ['REPAIR_INVALID_MODEL_OUTPUT', 'MODEL_UNAVAILABLE'],
    ['REPAIR_DEADLINE_EXCEEDED', 'TIME_LIMIT'],
    ['REPAIR_BUDGET_TOTAL_TOKENS', 'BUDGET'],
  ])('%s is told as %s', (reason, cause) => {
    expect(fallbackCause(reason)).toBe(cause);
  });

  it.each<[DiagnosisFallbackReason, string[], FallbackCause]>([
    ['DRAFT_EMPTY', ['DATASOURCE_UNAVAILABLE'], 'DATA_SOURCE_UNAVAILABLE'],
    ['SEMANTIC_UNSUPPORTED', ['QUERY_FAILED', 'DATASOURCE_UNAVAILABLE'], 'DATA_SOURCE_UNAVAILABLE'],
    ['EVIDENCE_VALIDATION_FAILED', ['DATASOURCE_UNAVAILABLE'], 'DATA_SOURCE_UNAVAILABLE'],
    ['AGENT_LOOP_REPEATED', ['EVIDENCE_STORE_UNAVAILABLE'], 'EVIDENCE_STORE_OUTAGE'],
    // A failure that is not about missing evidence keeps its own cause.
    ['GROUNDING_CHECK_FAILED', ['DATASOURCE_UNAVAILABLE'], 'GROUNDING_FAILED'],
    ['SEMANTIC_TIMEOUT', ['DATASOURCE_UNAVAILABLE'], 'MODEL_UNAVAILABLE'],
    ['EVIDENCE_STORE_LOST', ['DATASOURCE_UNAVAILABLE'], 'EVIDENCE_STORE_OUTAGE'],
    ['DRAFT_EMPTY', ['QUERY_TIMEOUT', 'NO_EVIDENCE'], 'EVIDENCE_INSUFFICIENT'],
  ])('%s after tool errors %p is told as %s', (reason, codes, cause) => {
    expect(fallbackCause(reason, new Set(codes))).toBe(cause);
  });
});

describe('FALLBACK_CAUSE_TEXT', () => {
  const causes = Object.keys(FALLBACK_CAUSE_TEXT) as FallbackCause[];

  it('gives every cause its own message', () => {
    const messages = causes.map(
      (cause) => `${FALLBACK_CAUSE_TEXT[cause].message}|${FALLBACK_CAUSE_TEXT[cause].limitation}`,
    );
    expect(new Set(messages).size).toBe(causes.length);
  });

  it.each<[FallbackCause]>([
    ['EVIDENCE_STORE_OUTAGE'],
    ['DATA_SOURCE_UNAVAILABLE'],
    ['MODEL_UNAVAILABLE'],
    ['TIME_LIMIT'],
    ['BUDGET'],
    ['DRAFT_UNREADABLE'],
    ['GROUNDING_FAILED'],
    ['RELEASE_CHECK_FAILED'],
  ])('never asks for missing data when the cause is %s', (cause) => {
    const text = FALLBACK_CAUSE_TEXT[cause];
    expect([text.message, text.limitation, ...text.next_steps].join(' ')).not.toMatch(MISSING_DATA);
  });

  it.each<[FallbackCause, RegExp]>([
    ['EVIDENCE_STORE_OUTAGE', /evidence store/],
    ['DATA_SOURCE_UNAVAILABLE', /business database/],
    ['MODEL_UNAVAILABLE', /language model/],
    ['GROUNDING_FAILED', /not in the evidence it cites/],
    ['EVIDENCE_INSUFFICIENT', /not sufficient/],
  ])('names the cause in the message for %s', (cause, pattern) => {
    expect(FALLBACK_CAUSE_TEXT[cause].message).toMatch(pattern);
  });

  it('does not blame the semantic review for a grounding or release-check failure', () => {
    for (const cause of ['GROUNDING_FAILED', 'RELEASE_CHECK_FAILED'] as const) {
      const text = FALLBACK_CAUSE_TEXT[cause];
      expect(`${text.message} ${text.limitation}`).not.toMatch(/semantic review|语义校验/);
    }
  });
});

describe('withCauseText', () => {
  it('replaces the texts and keeps the type, conclusion and sources', () => {
    const fallback: Fallback = {
      type: 'SEMANTIC_UNSUPPORTED',
      conclusion: null,
      message: 'old',
      verified_sources: [{ source_type: 'LOG', source: 'order-service', scope: '' }],
      limitations: ['old'],
      next_steps: ['old'],
    };
    expect(withCauseText(fallback, 'GROUNDING_FAILED')).toEqual({
      ...fallback,
      message: FALLBACK_CAUSE_TEXT.GROUNDING_FAILED.message,
      limitations: [FALLBACK_CAUSE_TEXT.GROUNDING_FAILED.limitation],
      next_steps: FALLBACK_CAUSE_TEXT.GROUNDING_FAILED.next_steps,
    });
  });
});
