import { MOCK_SCOPE_NOTE } from '@app/contracts';
import type { DiagnosisReport, Fallback, FallbackType, Reference } from '@app/contracts';
import type { PublishedResult } from '@app/trace';
import type { Draft } from './draft.schema';
import type { VerifiedSnapshot } from './evidence-rules';
import { inertText, inertValues, modelQueryScope } from './release-display';
import { isDemoEvidence, VerifiedEvidence } from './verified-evidence';

export type { DiagnosisReport, Fallback, FallbackType, Reference };

/** The fixed text of each fallback type (listed in docs/codes.md). */
export const FALLBACK_TEXT: Record<FallbackType, { message: string; limitation: string }> = {
  EVIDENCE_VALIDATION_FAILED: {
    message: '当前无法用已验证的证据支撑诊断结论 / The diagnosis could not be backed by verified evidence.',
    limitation: '诊断草稿未通过证据校验 / The draft did not pass evidence validation.',
  },
  SEMANTIC_UNSUPPORTED: {
    message: '当前证据不足，无法确认根因 / The evidence is not sufficient to confirm a root cause.',
    limitation: '语义校验未通过 / The report did not pass the semantic review.',
  },
  SEMANTIC_UNAVAILABLE: {
    message:
      '当前无法完成安全校验，未发布诊断结论 / The safety review is unavailable, so no conclusion is published.',
    limitation: '语义校验暂不可用 / The semantic review is temporarily unavailable.',
  },
  // A knowledge answer that could not be read, or was refused by the release checks or KnowledgeGuard.
  KNOWLEDGE_UNVERIFIED: {
    message:
      '知识库的回答未通过校验，因此不予展示 / An answer from the knowledge base could not be verified, so it is not shown.',
    limitation:
      '回答无法读取或未通过与引用文档的一致性校验 / The answer could not be read or did not pass the check against its cited documents.',
  },
};

const NEXT_STEPS = [
  '补充缺失的数据或缩小排查范围后重新发起诊断 / Add the missing data or narrow the scope, then ask again.',
  '稍后重试 / Try again later.',
];

export interface PublishLimits {
  maxFieldChars: number;
  maxSourceDocuments: number;
}

const cut = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text);

/** The draft's scope, plus the MOCK note whenever demo evidence is cited (stated by code, not left to the model). */
export function releasedScope(scope: string, cited: Iterable<VerifiedEvidence>): string {
  const mock = [...cited].some(isDemoEvidence);
  if (!mock || scope.includes(MOCK_SCOPE_NOTE)) return scope;
  return scope ? `${scope} ${MOCK_SCOPE_NOTE}` : MOCK_SCOPE_NOTE;
}

/**
 * The RELEASED timeline event's details: which tool call each reference expands (`ref_<n>` → its
 * tool_call_id), so the trace can link a report's reference to its call and back; the report itself
 * carries no ids. Bounded like every event's details (16 keys: the count and 15 references).
 */
export function releasedDetails(toolCallIds: string[]): Record<string, string | number> {
  return {
    references: toolCallIds.length,
    ...Object.fromEntries(toolCallIds.slice(0, 15).map((id, index) => [`ref_${index + 1}`, id])),
  };
}

/** SUPPORTED: release the draft as written plus deterministic references; also what a later turn may see. */
export function releaseReport(
  query: string,
  draft: Draft,
  snapshot: VerifiedSnapshot,
  limits: PublishLimits,
): { report: DiagnosisReport; publishedResult: PublishedResult; toolCallIds: string[] } {
  const ids = [...snapshot.cited.keys()];
  const references: Reference[] = ids.map((id, index) => {
    const { tool_name: _tool, ...evidence } = snapshot.cited.get(id)!;
    // Evidence is shown as data: its strings inert where dangerous, the scope labelled as the model's query.
    return {
      reference_id: index + 1,
      ...evidence,
      source: inertText(evidence.source),
      scope: modelQueryScope(evidence.scope),
      values: inertValues(evidence.values),
    };
  });
  const limitations = {
    ...draft.limitations,
    scope: releasedScope(draft.limitations.scope, snapshot.cited.values()),
  };
  const report: DiagnosisReport = {
    conclusion: draft.conclusion,
    analysis: draft.analysis.map((item) => ({
      analysis_id: item.analysis_id,
      kind: item.kind,
      text: item.text,
      reference_ids: [...new Set(item.tool_call_ids)].map((id) => ids.indexOf(id) + 1),
    })),
    action_plan: draft.action_plan,
    recommendations: draft.recommendations,
    limitations,
    references,
  };
  const documents = new Map<string, string>();
  for (const reference of references) {
    if (reference.source_type !== 'KNOWLEDGE' || !Array.isArray(reference.values)) continue;
    for (const item of reference.values as { document_id?: unknown; title?: unknown }[]) {
      if (typeof item.document_id === 'string' && !documents.has(item.document_id))
        documents.set(item.document_id, String(item.title ?? ''));
    }
  }
  const publishedResult: PublishedResult = {
    user_query: cut(query, limits.maxFieldChars),
    published_conclusion: draft.conclusion ? cut(draft.conclusion.text, limits.maxFieldChars) : null,
    scope: cut(limitations.scope, limits.maxFieldChars),
    limitations: draft.limitations.missing_info.map((item) => cut(item, limits.maxFieldChars)),
    source_documents: [...documents]
      .slice(0, limits.maxSourceDocuments)
      .map(([document_id, title]) => ({ document_id, title: cut(title, limits.maxFieldChars) })),
  };
  return { report, publishedResult, toolCallIds: ids };
}

const LOG_WINDOW = /; (\S+) – (\S+); (\d+) matching events$/u;
/** query_metrics' scope ends with the window and series count it built; the PromQL before it is the agent's. */
const METRIC_WINDOW = /; (\S+ – \S+, step \d+s|at \S+); (\d+) series$/u;
const TABLE = /\b(?:from|join)\s+[`"]?([A-Za-z_][\w$]*)[`"]?(?:\.[`"]?([A-Za-z_][\w$]*)[`"]?)?/giu;

/**
 * A fallback's scope without the agent's arguments (a search query or SQL text is model-written and may
 * carry a planted link): the tables a policy-checked statement read, a log search's window and count, a
 * metric query's window and series count, a knowledge lookup's document count.
 */
export function argumentFreeScope(
  evidence: Pick<VerifiedEvidence, 'source_type' | 'scope' | 'values'>,
): string {
  switch (evidence.source_type) {
    case 'MYSQL': {
      const sql = evidence.scope.replace(/ params=.*$/su, '');
      const tables = [...new Set([...sql.matchAll(TABLE)].map((m) => (m[2] ? `${m[1]}.${m[2]}` : m[1])))];
      return tables.length > 0 ? `tables: ${tables.join(', ')}` : '';
    }
    case 'LOG': {
      const window = LOG_WINDOW.exec(evidence.scope);
      return window ? `${window[1]} – ${window[2]}; ${window[3]} matching events` : '';
    }
    case 'KNOWLEDGE':
      return `${Array.isArray(evidence.values) ? evidence.values.length : 0} documents`;
    case 'METRIC': {
      const window = METRIC_WINDOW.exec(evidence.scope);
      return window ? `${window[1]}; ${window[2]} series` : '';
    }
    case 'OTHER':
      return '';
  }
}

/** Any other outcome: the fixed template, listing only verified sources (none after an evidence failure). */
export function fallbackReport(type: FallbackType, snapshot: VerifiedSnapshot | null): Fallback {
  const sources = type === 'EVIDENCE_VALIDATION_FAILED' || !snapshot ? [] : [...snapshot.cited.values()];
  const seen = new Set<string>();
  const verified_sources = sources
    .map((evidence) => ({
      source_type: evidence.source_type,
      source: inertText(evidence.source),
      scope: inertText(argumentFreeScope(evidence)),
    }))
    .filter((source) => {
      const key = JSON.stringify(source);
      return seen.has(key) ? false : (seen.add(key), true);
    });
  return {
    type,
    conclusion: null,
    message: FALLBACK_TEXT[type].message,
    verified_sources,
    limitations: [FALLBACK_TEXT[type].limitation],
    next_steps: NEXT_STEPS,
  };
}
