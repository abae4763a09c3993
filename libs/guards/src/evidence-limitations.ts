import type { EvidenceGap } from '@app/harness';
import type { Draft } from './draft.schema';
import type { VerifiedSnapshot } from './evidence-rules';

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

function sum(gaps: Iterable<EvidenceGap>): EvidenceGap {
  const total = { unreadable_lines: 0, unreadable_files: 0 };
  for (const gap of gaps) {
    total.unreadable_lines += gap.unreadable_lines;
    total.unreadable_files += gap.unreadable_files;
  }
  return total;
}

function unread(gap: EvidenceGap): string {
  return [
    gap.unreadable_lines > 0 ? plural(gap.unreadable_lines, 'unreadable line', 'unreadable lines') : '',
    gap.unreadable_files > 0 ? plural(gap.unreadable_files, 'unreadable file', 'unreadable files') : '',
  ]
    .filter(Boolean)
    .join(' and ');
}

/**
 * The limitations code adds to a released report when cited results declare a gap (unread lines or
 * files in their scope, `gapOf`): one for the cited scope, and one per NEGATIVE_OBSERVATION citing such
 * a result, so "nothing found" over unread data is never released as complete. Built from templates.
 */
export function evidenceLimitations(draft: Draft, snapshot: VerifiedSnapshot): string[] {
  const gaps = snapshot.gaps;
  if (!gaps || gaps.size === 0) return [];
  const limitations = [
    `引用的日志检索范围内有未能读取的数据（${unread(sum(gaps.values()))}），其中的事件未被检索 / ` +
      `The cited log searches hold ${unread(sum(gaps.values()))} in their scope; events there were not searched.`,
  ];
  for (const analysis of draft.analysis) {
    if (analysis.kind !== 'NEGATIVE_OBSERVATION') continue;
    const cited = analysis.tool_call_ids.filter((id) => gaps.has(id));
    if (cited.length === 0) continue;
    const gap = unread(sum(cited.map((id) => gaps.get(id)!)));
    limitations.push(
      `分析 ${analysis.analysis_id} 的“未发现”覆盖了未能读取的数据（${gap}），不能证明不存在 / ` +
        `Analysis ${analysis.analysis_id} reports an absence over a scope with ${gap}: that nothing is there is not established.`,
    );
  }
  return limitations;
}

/** The draft with the code-built limitations appended to `missing_info` (once each), as released. */
export function withEvidenceLimitations(draft: Draft, snapshot: VerifiedSnapshot): Draft {
  const added = evidenceLimitations(draft, snapshot).filter(
    (text) => !draft.limitations.missing_info.includes(text),
  );
  if (added.length === 0) return draft;
  return {
    ...draft,
    limitations: { ...draft.limitations, missing_info: [...draft.limitations.missing_info, ...added] },
  };
}
