import { jsonObjectsIn, parseJsonAnswer } from '@app/harness';
import { Draft, withSnakeCaseKeys } from './draft.schema';

interface Texts {
  conclusion: string | null | undefined;
  analysis: Map<string, { kind: unknown; text: string }>;
  actions: string[];
  recommendations: string[];
  scope: string | undefined;
  missingInfo: string[];
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value.trim() : undefined);
const list = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value) ? value.filter((item) => typeof item === 'object' && item !== null) : [];

/**
 * The drafts the agent's original answer may have meant, as parsed values: the one object
 * `parseJsonAnswer` reads, or, when the answer was too ambiguous to read (the likely reason it went
 * to repair), every top-level object it holds.
 */
function originalDrafts(answer: string): Record<string, unknown>[] {
  const value = parseJsonAnswer(answer);
  if (typeof value === 'object' && value !== null && !Array.isArray(value))
    return [withSnakeCaseKeys(value) as Record<string, unknown>];
  return jsonObjectsIn(answer).map((object) => withSnakeCaseKeys(object) as Record<string, unknown>);
}

/** Whitespace collapsed and Markdown emphasis dropped, so a text is compared as the reader sees it. */
const plain = (value: string) =>
  value
    .replace(/[*_`]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();

/**
 * For an answer with no JSON in it (Markdown, prose) that the repair converted: every text of the
 * draft must appear in the answer as written (the kinds and references are the repair's structure).
 */
function textualChanges(originalAnswer: string, repaired: Draft): string[] {
  const source = plain(originalAnswer);
  const absent = (label: string, value: string) =>
    value.trim() !== '' && !source.includes(plain(value)) ? [`${label} was added or changed`] : [];
  return [
    ...(repaired.conclusion ? absent('the conclusion text', repaired.conclusion.text) : []),
    ...repaired.analysis.flatMap((item) => absent(`analysis ${item.analysis_id}`, item.text)),
    ...repaired.action_plan.flatMap((item, index) => absent(`action_plan[${index}]`, item.action)),
    ...repaired.recommendations.flatMap((item, index) => absent(`recommendations[${index}]`, item.text)),
    ...repaired.limitations.missing_info.flatMap((item, index) =>
      absent(`limitations.missing_info[${index}]`, item),
    ),
    ...absent('limitations.scope', repaired.limitations.scope),
  ];
}

/** The user-visible texts of one original draft, read leniently: it failed the checks once. */
function originalTexts(draft: Record<string, unknown>): Texts {
  const conclusion = draft.conclusion as Record<string, unknown> | null | undefined;
  const limitations = (draft.limitations ?? {}) as Record<string, unknown>;
  const analysis = new Map<string, { kind: unknown; text: string }>();
  for (const item of list(draft.analysis)) {
    const id = str(item.analysis_id);
    const text = str(item.text);
    if (id !== undefined && text !== undefined) analysis.set(id, { kind: item.kind, text });
  }
  return {
    conclusion: conclusion === null ? null : str(conclusion?.text),
    analysis,
    actions: list(draft.action_plan).flatMap((item) => str(item.action) ?? []),
    recommendations: list(draft.recommendations).flatMap((item) => str(item.text) ?? []),
    scope: str(limitations.scope),
    missingInfo: Array.isArray(limitations.missing_info)
      ? limitations.missing_info.flatMap((item) => str(item) ?? [])
      : [],
  };
}

/**
 * The repair may only change structure (citations, references between items, dropping items
 * or the conclusion). Every text of the repaired draft must be one the agent wrote, unchanged: the
 * conclusion, each analysis (same id, kind and text), actions, recommendations and limitations.
 * Returns what the repair changed; empty means it stayed within its remit.
 */
export function repairContentChanges(originalAnswer: string, repaired: Draft): string[] {
  // Compared by parsed value: within remit when it matches one object the agent wrote; otherwise the
  // changes against the closest one.
  const drafts = originalDrafts(originalAnswer);
  if (drafts.length === 0) return textualChanges(originalAnswer, repaired);
  const candidates = drafts.map((draft) => changesFrom(originalTexts(draft), repaired));
  return candidates.reduce((closest, changes) => (changes.length < closest.length ? changes : closest));
}

function changesFrom(original: Texts, repaired: Draft): string[] {
  const changes: string[] = [];
  if (repaired.conclusion && repaired.conclusion.text !== original.conclusion)
    changes.push('the conclusion text was changed');
  for (const item of repaired.analysis) {
    const before = original.analysis.get(item.analysis_id);
    if (!before) changes.push(`analysis ${item.analysis_id} was added`);
    else if (before.text !== item.text || before.kind !== item.kind)
      changes.push(`analysis ${item.analysis_id} was changed`);
  }
  const unchanged = (label: string, texts: string[], allowed: string[]) => {
    const left = [...allowed];
    texts.forEach((text, index) => {
      const at = left.indexOf(text);
      if (at === -1) changes.push(`${label}[${index}] was added or changed`);
      else left.splice(at, 1);
    });
  };
  unchanged(
    'action_plan',
    repaired.action_plan.map((item) => item.action),
    original.actions,
  );
  unchanged(
    'recommendations',
    repaired.recommendations.map((item) => item.text),
    original.recommendations,
  );
  unchanged('limitations.missing_info', repaired.limitations.missing_info, original.missingInfo);
  if (repaired.limitations.scope !== (original.scope ?? '')) changes.push('limitations.scope was changed');
  return changes;
}
