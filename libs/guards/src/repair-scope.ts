import { parseJsonAnswer } from '@app/harness';
import type { Draft } from './draft.schema';

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

/** The user-visible texts of the agent's original answer, read leniently: it failed the checks once. */
function originalTexts(answer: string): Texts {
  const value = parseJsonAnswer(answer);
  const draft = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
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
 * Seed §4.3: the repair may only change structure (citations, references between items, dropping items
 * or the conclusion). Every text of the repaired draft must be one the agent wrote, unchanged: the
 * conclusion, each analysis (same id, kind and text), actions, recommendations and limitations.
 * Returns what the repair changed; empty means it stayed within its remit.
 */
export function repairContentChanges(originalAnswer: string, repaired: Draft): string[] {
  const original = originalTexts(originalAnswer);
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
