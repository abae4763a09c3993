import type { Fallback } from '@app/guards';
import type { BudgetCode, FailureKind, ModelCallCode, RunStop } from '@app/harness';
import type { DiagnosisFallbackReason, GuardFailureCode } from './diagnosis-pipeline';

/**
 * What the chat user is told a diagnosis fallback came from: one text per cause, so an outage is never
 * answered with "add the missing data". A closed set; each reason maps to exactly one cause.
 */
export type FallbackCause =
  | 'EVIDENCE_STORE_OUTAGE'
  | 'DATA_SOURCE_UNAVAILABLE'
  | 'MODEL_UNAVAILABLE'
  | 'TIME_LIMIT'
  | 'BUDGET'
  | 'EVIDENCE_INSUFFICIENT'
  | 'REVIEW_UNSUPPORTED'
  | 'CITATIONS_INVALID'
  | 'DRAFT_UNREADABLE'
  | 'GROUNDING_FAILED'
  | 'RELEASE_CHECK_FAILED'
  | 'REVIEW_INPUT_TOO_LARGE';

interface CauseText {
  message: string;
  limitation: string;
  next_steps: string[];
}

const TRY_AGAIN_LATER = '稍后重试 / Try again later.';
const NARROW_SCOPE =
  '缩小排查范围（时间窗口、服务或订单）后重新发起诊断 / Narrow the scope (time window, service or order), then ask again.';

export const FALLBACK_CAUSE_TEXT: Record<FallbackCause, CauseText> = {
  EVIDENCE_STORE_OUTAGE: {
    message:
      '证据存储暂时不可用，因此未发布诊断结论 / The evidence store is unavailable, so no conclusion is published.',
    limitation:
      '本次运行的证据记录无法读取或已丢失，证据无法核验 / This run’s evidence records could not be read or were lost, so the evidence could not be verified.',
    next_steps: [
      '这是服务故障，无需补充数据：请管理员检查证据存储（Redis，见 /health） / This is a service outage, nothing to add on your side: ask the operator to check the evidence store (Redis, see /health).',
      TRY_AGAIN_LATER,
    ],
  },
  DATA_SOURCE_UNAVAILABLE: {
    message:
      '业务数据库暂时无法查询，证据不完整，因此未发布诊断结论 / A business database could not be queried, so the evidence is incomplete and no conclusion is published.',
    limitation:
      '业务数据库拒绝了访问或无法连接 / A business database refused access or could not be reached.',
    next_steps: [
      '请管理员检查业务数据源（/health 中的 data_sources，或 npm run doctor） / Ask the operator to check the business data sources (data_sources in /health, or npm run doctor).',
      TRY_AGAIN_LATER,
    ],
  },
  MODEL_UNAVAILABLE: {
    message:
      '语言模型暂时不可用，报告无法完成校验，因此未发布 / The language model is unavailable, so the report could not be checked and is not published.',
    limitation: '校验所需的模型调用失败 / A model call the checks need failed.',
    next_steps: [
      TRY_AGAIN_LATER,
      '若持续发生，请管理员检查模型服务（/health 中的 llm） / If it persists, ask the operator to check the model service (llm in /health).',
    ],
  },
  TIME_LIMIT: {
    message:
      '本次诊断在时限内未完成校验，因此未发布结论 / The run reached its time limit before the report was checked, so no conclusion is published.',
    limitation: '校验未在时限内完成 / The checks did not finish within the time limit.',
    next_steps: [NARROW_SCOPE, TRY_AGAIN_LATER],
  },
  BUDGET: {
    message:
      '本次诊断在校验前用尽了资源预算，因此未发布结论 / The run used up its budget before the report was checked, so no conclusion is published.',
    limitation: '运行预算已用尽 / The run budget was used up.',
    next_steps: [NARROW_SCOPE],
  },
  EVIDENCE_INSUFFICIENT: {
    message: '当前证据不足，无法确认根因 / The evidence is not sufficient to confirm a root cause.',
    limitation: '收集到的证据不足以得出结论 / The evidence collected does not support a conclusion.',
    next_steps: [
      '补充缺失的数据或缩小排查范围后重新发起诊断 / Add the missing data or narrow the scope, then ask again.',
    ],
  },
  REVIEW_UNSUPPORTED: {
    message: '当前证据不足，无法确认根因 / The evidence is not sufficient to confirm a root cause.',
    limitation:
      '语义校验认为结论没有得到所引用证据的支持 / The semantic review found the conclusion not supported by the cited evidence.',
    next_steps: [
      '补充缺失的数据或缩小排查范围后重新发起诊断 / Add the missing data or narrow the scope, then ask again.',
    ],
  },
  CITATIONS_INVALID: {
    message: '当前无法用已验证的证据支撑诊断结论 / The diagnosis could not be backed by verified evidence.',
    limitation:
      '诊断草稿引用了本次运行中不存在或不可用的证据 / The draft cited evidence that this run does not hold or cannot use.',
    next_steps: [TRY_AGAIN_LATER, NARROW_SCOPE],
  },
  DRAFT_UNREADABLE: {
    message:
      '模型的回答无法读取为诊断报告，因此未发布 / The model’s answer could not be read as a report, so nothing is published.',
    limitation: '诊断草稿格式无法解析 / The draft could not be parsed.',
    next_steps: [TRY_AGAIN_LATER],
  },
  GROUNDING_FAILED: {
    message:
      '报告中的部分内容（标识、数值或名称）在其引用的证据中找不到，因此未发布 / Part of the report (identifiers, numbers or names) is not in the evidence it cites, so it is not published.',
    limitation: '报告未通过证据一致性检查 / The report did not pass the check against its cited evidence.',
    next_steps: [NARROW_SCOPE, TRY_AGAIN_LATER],
  },
  RELEASE_CHECK_FAILED: {
    message:
      '报告包含未经引用文档或白名单认可的链接、命令或联系方式，因此未发布 / The report contained links, commands or contacts that no cited runbook or allowlist vouches for, so it is not published.',
    limitation: '报告未通过发布检查 / The report did not pass the release checks.',
    next_steps: [TRY_AGAIN_LATER],
  },
  REVIEW_INPUT_TOO_LARGE: {
    message:
      '报告过大，无法完成安全校验，因此未发布 / The report is too large for the safety review, so it is not published.',
    limitation: '语义校验的输入超出上限 / The review input exceeded its limit.',
    next_steps: [NARROW_SCOPE],
  },
};

/** The reasons spelled out one by one: adding one to DiagnosisFallbackReason without a cause does not compile. */
type FixedReason = Exclude<
  DiagnosisFallbackReason,
  `REPAIR_${GuardFailureCode}` | `SEMANTIC_${GuardFailureCode}`
>;

/** The cause each fixed fallback reason is explained by (listed in docs/codes.md). */
export const FIXED_REASON_CAUSE: Record<FixedReason, FallbackCause> = {
  EVIDENCE_VALIDATION_FAILED: 'CITATIONS_INVALID',
  EVIDENCE_STORE_UNAVAILABLE: 'EVIDENCE_STORE_OUTAGE',
  EVIDENCE_STORE_LOST: 'EVIDENCE_STORE_OUTAGE',
  DRAFT_UNREADABLE: 'DRAFT_UNREADABLE',
  DRAFT_EMPTY: 'EVIDENCE_INSUFFICIENT',
  AGENT_LOOP_REPEATED: 'EVIDENCE_INSUFFICIENT',
  RELEASE_CHECK_FAILED: 'RELEASE_CHECK_FAILED',
  GROUNDING_CHECK_FAILED: 'GROUNDING_FAILED',
  SEMANTIC_UNSUPPORTED: 'REVIEW_UNSUPPORTED',
  SEMANTIC_INPUT_TOO_LARGE: 'REVIEW_INPUT_TOO_LARGE',
};

const RUN_STOP_CAUSE: Record<RunStop, FallbackCause> = {
  DEADLINE_EXCEEDED: 'TIME_LIMIT',
  CANCELLED: 'TIME_LIMIT',
};

/** A guard-phase model call's failure (repair or review), by its recorded code. */
export function guardFailureCause(code: GuardFailureCode): FallbackCause {
  if (code === 'DEADLINE_EXCEEDED' || code === 'CANCELLED') return RUN_STOP_CAUSE[code];
  if (code === 'BUDGET_EXHAUSTED' || code.startsWith('BUDGET_')) return 'BUDGET';
  // Everything left is a model call's own failure; a new kind of code here fails to compile.
  const model: Exclude<ModelCallCode | FailureKind, RunStop | 'BUDGET_EXHAUSTED'> = code as Exclude<
    GuardFailureCode,
    RunStop | BudgetCode | 'BUDGET_EXHAUSTED'
  >;
  return model === 'NO_EVIDENCE' || model === 'BUSINESS_REJECTION'
    ? 'EVIDENCE_INSUFFICIENT'
    : 'MODEL_UNAVAILABLE';
}

/** Causes that say "the evidence was not enough": a business database outage in the run explains them better. */
const EXPLAINED_BY_DATA_SOURCE = new Set<FallbackCause>([
  'EVIDENCE_INSUFFICIENT',
  'REVIEW_UNSUPPORTED',
  'CITATIONS_INVALID',
]);

/**
 * The cause of a fallback: its reason, except that a run whose query_mysql calls found a business
 * database unavailable is told so instead of "the evidence is insufficient".
 */
export function fallbackCause(
  reason: DiagnosisFallbackReason,
  toolErrorCodes: ReadonlySet<string> = new Set(),
): FallbackCause {
  const cause =
    reason in FIXED_REASON_CAUSE
      ? FIXED_REASON_CAUSE[reason as FixedReason]
      : guardFailureCause(reason.replace(/^(REPAIR|SEMANTIC)_/, '') as GuardFailureCode);
  if (EXPLAINED_BY_DATA_SOURCE.has(cause) && toolErrorCodes.has('DATASOURCE_UNAVAILABLE'))
    return 'DATA_SOURCE_UNAVAILABLE';
  if (EXPLAINED_BY_DATA_SOURCE.has(cause) && toolErrorCodes.has('EVIDENCE_STORE_UNAVAILABLE'))
    return 'EVIDENCE_STORE_OUTAGE';
  return cause;
}

/** The fallback with its cause's user text; its type, sources and conclusion stay as built. */
export function withCauseText(fallback: Fallback, cause: FallbackCause): Fallback {
  const text = FALLBACK_CAUSE_TEXT[cause];
  return { ...fallback, message: text.message, limitations: [text.limitation], next_steps: text.next_steps };
}
