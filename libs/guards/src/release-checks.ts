import type { Draft } from './draft.schema';
import type { VerifiedSnapshot } from './evidence-rules';
import { allowlistPermits, EMPTY_ALLOWLIST, type ReleaseAllowlist } from './release-allowlist';
import {
  commandCorpus,
  commandSpansBothWays,
  type CommandCorpus,
  commandVouched,
  type CommandSpan,
} from './release-commands';
import { hiddenControlsIn, normaliseForRelease } from './release-normalise';
import { tokensOfEveryReading, type SensitiveKind, type SensitiveToken } from './release-tokens';

/**
 * Deterministic release checks (docs/release-gate.md): code, no LLM, run on every text a run releases
 * (diagnosis draft, knowledge answer, system chat) before any semantic check. Every text is first given
 * its canonical reading; then a link, host, IP address, e-mail address, phone number, chat handle, file
 * path, markup or command in it is released only when that exact token is vouched for by a curated
 * runbook the run cited or by the operator's allowlist. Logs, rows, metric series, MCP results and the
 * model's own tool arguments vouch for nothing. What these find is never rewritten out of the text: the
 * whole answer is refused (fixed fallback).
 */
export const RELEASE_VIOLATIONS = [
  'DANGEROUS_MARKUP',
  'CREDENTIAL_REQUEST',
  'HIDDEN_CONTROL',
  'MARKUP',
  'LINK',
  'EMAIL',
  'PHONE',
  'CHAT_HANDLE',
  'FILE_PATH',
  'COMMAND',
  'UNCONFIRMED_CHANGE',
] as const;
export type ReleaseViolation = (typeof RELEASE_VIOLATIONS)[number];

/** Refused in an answer and in the documents it cites: a runbook carrying them is itself poisoned. */
const DANGEROUS_MARKUP =
  /<\/?(?:script|iframe|frame|object|embed|style|form|svg|img|link|meta|base|math|template)\b|<[^<>]*\son[a-z]+\s*=|\b(?:javascript|vbscript):|\bdata:text\/html/iu;
const MARKUP = /<!--|<!\[CDATA\[|<\?xml|<\/?[a-z][a-z0-9-]*(?:\s+[^<>]*)?\/?>/giu;

const CREDENTIAL =
  /api[\s_-]?key|access[\s_-]?key|secret|pass[\s_-]?word|passwd|\bpwd\b|\bcreds?\b|passcode|passphrase|\bpin\b|token|credential|private[\s_-]?key|ssh[\s_-]?key|id_rsa|id_ed25519|cookie|session[\s_-]?id|one[\s-]?time[\s-]?(?:code|password)|\botp\b|\b[m2]fa\b|two[\s-]?factor|multi[\s-]?factor|(?:verification|auth(?:entication|enticator)?|security|login|sms|recovery|backup)[\s_-]?codes?|seed[\s-]?phrase|mnemonic|recovery[\s-]?phrase|验证码|动态码|校验码|安全码|短信码|密钥|密码|口令|令牌|凭证|凭据|私钥|助记词/iu;
const SECOND_PERSON = /\byour?\b|\byou'?re\b|您|你/iu;
const SOLICIT_WORDS =
  'paste|send|enter|type|share|provide|submit|post|upload|e-?mail|forward|give|tell|reply|input|disclose|dm|message|hand\\s+over';
const SOLICIT = new RegExp(
  String.raw`\b(?:${SOLICIT_WORDS})\b|粘贴|发送|发给|发到|发至|私信|转发|交给|贴到|提供|输入|提交|上传|告诉|告知|填写|回复`,
  'iu',
);
/**
 * A request, not an observation: a modal or "please" before the verb, or a clause that opens with it
 * (at the sentence's start or after a leading clause: "To proceed, send …"), or a Chinese imperative.
 */
const DIRECTIVE = new RegExp(
  String.raw`\b(?:must|should|shall|needs?\s+to|has\s+to|have\s+to|is\s+(?:required|asked|expected)\s+to|are\s+(?:required|asked|expected)\s+to|please|pls|plz|kindly)\b[^.!?\n]{0,40}?\b(?:${SOLICIT_WORDS})\b|(?:^|[,:;，：；])\s*(?:now\s+|then\s+|first\s+|immediately\s+)?(?:${SOLICIT_WORDS})\b|必须|需要|务必|请|^\s*把`,
  'iu',
);
/** Sentence and clause ends: a stop before a space or the end, `;`, `!`, `?` and their CJK forms. */
const SENTENCE_END = /[!?。！？\n;；]+|\.(?=\s|$)/u;
/** Abbreviations whose dot ends no sentence (`Send e.g. your password …` is one). */
const ABBREVIATION = /\b(e\.g|i\.e|etc|vs|cf|incl|approx|resp)\./giu;

const flatten = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').trim();

function credentialRequested(text: string): boolean {
  if (!CREDENTIAL.test(text)) return false;
  return text
    .replace(ABBREVIATION, '$1')
    .split(SENTENCE_END)
    .some(
      (sentence) =>
        CREDENTIAL.test(sentence) &&
        SOLICIT.test(sentence) &&
        (SECOND_PERSON.test(sentence) || DIRECTIVE.test(sentence)),
    );
}

function alwaysRefused(text: string): ReleaseViolation[] {
  const found: ReleaseViolation[] = [];
  if (DANGEROUS_MARKUP.test(text)) found.push('DANGEROUS_MARKUP');
  if (credentialRequested(text)) found.push('CREDENTIAL_REQUEST');
  return found;
}

/** What an answer cites, as the release checks need it. */
export interface CitedEvidence {
  /**
   * The cited curated knowledge documents (uploaded by a knowledge admin), titles and headings included:
   * the only evidence that may vouch for a link, address, contact, path, markup or command, and
   * always-refused content in one refuses. Rows, log lines, metric series, MCP results and tool
   * arguments are data about the incident, never instructions to the reader: they vouch for nothing.
   */
  documents: readonly string[];
}

const VIOLATION_OF: Record<SensitiveKind, ReleaseViolation> = {
  LINK: 'LINK',
  HOST: 'LINK',
  IP: 'LINK',
  EMAIL: 'EMAIL',
  PHONE: 'PHONE',
  CHAT_HANDLE: 'CHAT_HANDLE',
  FILE_PATH: 'FILE_PATH',
};

const keyOf = (kind: SensitiveKind, value: string) => `${kind} ${value}`;

/**
 * What the cited runbooks vouch for: their exact tokens (a link or address also names its host), markup,
 * and their commands both in the command reading and as written.
 */
export interface Vouched {
  tokens: ReadonlySet<string>;
  markup: ReadonlySet<string>;
  commands: CommandCorpus;
  writtenCommands: CommandCorpus;
}

/**
 * One text as every rule reads it, computed once per check. The canonical reading finds what a disguise
 * would hide; what is vouched for must also be there as written (`written`): a reading that folds a
 * look-alike letter, drops a comment or decodes a blob may refuse a text, never approve one.
 */
interface Reading {
  hidden: boolean;
  canonical: string;
  /** The tokens of every reading (release-tokens `tokensOfEveryReading`): each must be vouched for. */
  tokens: SensitiveToken[];
  spans: CommandSpan[];
  /** The keys of the tokens as displayed and as written. */
  writtenTokens: ReadonlySet<string>;
  /** The commands as written (release-commands `commandSpansBothWays`). */
  writtenSpans: CommandSpan[];
}
type Reader = (text: string) => Reading;

const keysOf = (tokens: readonly SensitiveToken[]) =>
  new Set(tokens.map((token) => keyOf(token.kind, token.value)));

/** A reader that reads each text of one check once (the cache lives as long as the check). */
function reader(): Reader {
  const cache = new Map<string, Reading>();
  return (text) => {
    let reading = cache.get(text);
    if (!reading) {
      const canonical = normaliseForRelease(text);
      const { all, written } = tokensOfEveryReading(text, canonical);
      const tokens = new Map<string, SensitiveToken>();
      for (const token of all) tokens.set(keyOf(token.kind, token.value), token);
      const commands = commandSpansBothWays(text, canonical);
      reading = {
        hidden: hiddenControlsIn(text),
        canonical,
        tokens: [...tokens.values()],
        spans: commands.spans,
        writtenTokens: keysOf(written),
        writtenSpans: commands.written,
      };
      cache.set(text, reading);
    }
    return reading;
  };
}

export function vouchedBy(documents: readonly string[], read: Reader = reader()): Vouched {
  const tokens = new Set<string>();
  const markup = new Set<string>();
  for (const document of documents) {
    const { canonical, tokens: found, writtenTokens } = read(document);
    for (const token of found) {
      // A runbook vouches for what it holds as written, not for what a look-alike in it reads as.
      if (!writtenTokens.has(keyOf(token.kind, token.value))) continue;
      tokens.add(keyOf(token.kind, token.value));
      if ((token.kind === 'LINK' || token.kind === 'EMAIL') && token.host)
        tokens.add(keyOf(/^[\d.]+$/u.test(token.host) ? 'IP' : 'HOST', token.host));
    }
    for (const match of canonical.matchAll(MARKUP)) markup.add(flatten(match[0]));
  }
  return {
    tokens,
    markup,
    commands: commandCorpus(documents.map((document) => read(document).spans)),
    writtenCommands: commandCorpus(documents.map((document) => read(document).writtenSpans)),
  };
}

/** Vouched for by a runbook or the allowlist, and written as the token it reads as (no look-alike). */
function tokenVouched(
  token: SensitiveToken,
  reading: Reading,
  vouched: Vouched,
  allowlist: ReleaseAllowlist,
): boolean {
  const key = keyOf(token.kind, token.value);
  return reading.writtenTokens.has(key) && (vouched.tokens.has(key) || allowlistPermits(allowlist, token));
}

/** The shell, SQL and CLI commands of a text that may change something (read-only SELECTs excluded). */
export function systemChangingCommandsIn(text: string, read: Reader = reader()): string[] {
  return read(text)
    .spans.filter((span) => !span.readOnly)
    .map((span) => span.tokens.slice(span.marker, span.proseFrom).join(' '));
}

function violationsOf(
  reading: Reading,
  vouched: Vouched,
  allowlist: ReleaseAllowlist,
  found: Set<ReleaseViolation>,
): void {
  if (reading.hidden) found.add('HIDDEN_CONTROL');
  for (const violation of alwaysRefused(reading.canonical)) found.add(violation);
  for (const match of reading.canonical.matchAll(MARKUP))
    if (!vouched.markup.has(flatten(match[0]))) found.add('MARKUP');
  for (const token of reading.tokens)
    if (!tokenVouched(token, reading, vouched, allowlist)) found.add(VIOLATION_OF[token.kind]);
  for (const span of reading.spans) if (!commandVouched(span, vouched.commands)) found.add('COMMAND');
  for (const span of reading.writtenSpans)
    if (!commandVouched(span, vouched.writtenCommands)) found.add('COMMAND');
}

/**
 * What in `texts` (the user-visible parts of an answer) must not be released, given the cited runbooks
 * and the operator's allowlist: always-refused content in the answer or a cited document, hidden
 * characters, and links, hosts, addresses, contacts, paths, markup and commands nothing vouches for.
 * Empty = releasable.
 */
export function findReleaseViolations(
  texts: readonly string[],
  evidence: CitedEvidence,
  allowlist: ReleaseAllowlist = EMPTY_ALLOWLIST,
  read: Reader = reader(),
): ReleaseViolation[] {
  const found = new Set<ReleaseViolation>();
  for (const document of evidence.documents)
    for (const violation of alwaysRefused(read(document).canonical)) found.add(violation);
  const vouched = vouchedBy(evidence.documents, read);
  for (const text of texts) violationsOf(read(text), vouched, allowlist, found);
  return RELEASE_VIOLATIONS.filter((violation) => found.has(violation));
}

const SIDE_EFFECT = new RegExp(
  [
    String.raw`\b(?:re-?start|reboot|restart|kill|terminate|stop|shut\s*down|drop|delete|remove|purge|truncate|wipe|erase|flush|clear|reset|scale|resize|expand|enlarge|increase|decrease|raise|lower|shrink|roll\s*back|rollback|revert|re-?deploy|deploy|release|publish|fail\s*over|failover|switch\s*over|switchover|promote|demote|migrate|upgrade|downgrade|patch|disable|enable|block|ban|throttle|rate-?limit|evict|drain|cordon|rotate|revoke|grant|modify|change|update|edit|alter|reconfigure|toggle|cancel|abort|refund|retry|replay|re-?run|rerun|reindex|rebuild|recreate|rename|overwrite|cut\s*over)\w*`,
    String.raw`\bconfig(?:uration)?\s+change`,
    '重启|删除|删掉|扩容|缩容|回滚|终止|杀掉|杀死|停止|停掉|关闭|清空|清理|清除|截断|修改|变更|调整|扩大|缩小|增大|减小|调大|调小|发布|部署|上线|下线|切换|主备|迁移|升级|降级|禁用|启用|封禁|限流|熔断|重置|刷新|重建|重试|重放|退款|取消|回退|重新执行',
  ].join('|'),
  'iu',
);

/** Whether an action changes a system (English or Chinese); such an action always needs a human's go-ahead. */
export function changesSystems(action: string): boolean {
  return SIDE_EFFECT.test(action);
}

/** Characters prose does not need: an action holding one is read as code. */
const CODE_PUNCTUATION = /[`$|&<>{}[\]\\=*#~^@]|(?:^|\s)--?[a-z]|\w\(|;\s*\S/iu;

/**
 * Whether an action is plain prose: no command, link, address, contact or path of any kind and no code
 * punctuation. Anything else is decided to be a command (when unsure, a human confirms it).
 */
export function isPlainProse(text: string, read: Reader = reader()): boolean {
  const reading = read(text);
  return (
    !CODE_PUNCTUATION.test(reading.canonical) &&
    reading.spans.length === 0 &&
    reading.tokens.length === 0 &&
    !reading.hidden
  );
}

/**
 * Verbs of a step that only looks (English, Chinese), after an optional "please" / "first" (请, 先).
 * Not "confirm", "verify" or 确认: they also ask a reader to make a thing so ("confirm the rollback").
 */
const LOOKING =
  /^(?:(?:please|first)\b[,\s]*)*(?:check|inspect|review|look|view|read|monitor|watch|observe|compare|examine|investigate|query|search|list|count|measure|trace|correlate|collect|gather|identify|locate|find|analy[sz]e|audit)\b|^(?:请|先)?(?:查看|检查|核对|核查|观察|监控|对比|比对|排查|分析|定位|收集|统计|查询|搜索|检索|追踪|跟踪|复核|审查)/iu;
/**
 * A second step joined to the first: a list, a clause, a word that chains actions or makes a condition,
 * or one that gives the look a means ("check the queue by purging it", 通过…, 把… — an object acted on).
 */
const MORE_THAN_ONE_STEP =
  /[,;:，；：、]|\b(?:and|or|then|also|after|before|afterwards|plus|while|by|via|through|using|until|when|whenever|if|once|unless)\b|以及|并且|然后|之后|同时|再|和|或|并|通过|借助|直到|时|把|将|顺便/iu;

/**
 * Whether an action is one step that only looks (check, inspect, compare, 查看, 核对…): a closed set of
 * verbs, so a step that does anything else — power off, turn off, install, set, 停服 — is not one,
 * whatever word it uses.
 */
export function onlyLooks(action: string): boolean {
  const text = action.trim();
  return LOOKING.test(text) && !MORE_THAN_ONE_STEP.test(text);
}

/**
 * The draft with every action forced to need confirmation unless it is one plain-prose step that only
 * looks and names no change: when unsure, a human confirms.
 */
export function enforceHumanConfirmation(draft: Draft, read: Reader = reader()): Draft {
  return {
    ...draft,
    action_plan: draft.action_plan.map((item) =>
      changesSystems(item.action) || !onlyLooks(item.action) || !isPlainProse(item.action, read)
        ? { ...item, requires_human_confirmation: true }
        : item,
    ),
  };
}

/** Every user-visible text of a draft (what the report releases besides the references), its ids included. */
export function draftTexts(draft: Draft): string[] {
  return [
    ...(draft.conclusion ? [draft.conclusion.text, ...draft.conclusion.based_on_analysis_ids] : []),
    ...draft.analysis.map((item) => item.analysis_id),
    ...draft.action_plan.flatMap((item) => item.based_on_analysis_ids),
    ...draft.recommendations.flatMap((item) => item.based_on_analysis_ids),
    ...draft.analysis.map((item) => item.text),
    ...draft.action_plan.map((item) => item.action),
    ...draft.recommendations.map((item) => item.text),
    draft.limitations.scope,
    ...draft.limitations.missing_info,
  ];
}

function stringsOf(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (typeof value === 'number') into.push(String(value));
  else if (Array.isArray(value)) value.forEach((item) => stringsOf(item, into));
  else if (typeof value === 'object' && value !== null)
    Object.values(value).forEach((item) => stringsOf(item, into));
  return into;
}

/** Every string of the cited knowledge documents; rows, log lines, series and scopes (tool arguments) vouch for nothing. */
export function citedEvidenceOf(snapshot: VerifiedSnapshot): CitedEvidence {
  const documents = [...snapshot.cited.values()].filter((evidence) => evidence.source_type === 'KNOWLEDGE');
  return { documents: stringsOf(documents.map((evidence) => evidence.values)) };
}

export type DraftReleaseCheck = { ok: true; draft: Draft } | { ok: false; violations: ReleaseViolation[] };

/** The release checks for a diagnosis draft against the runbooks it cites; on success the confirmation-enforced draft. */
export function checkDraftRelease(
  draft: Draft,
  snapshot: VerifiedSnapshot,
  allowlist: ReleaseAllowlist = EMPTY_ALLOWLIST,
): DraftReleaseCheck {
  const read = reader();
  const violations = findReleaseViolations(draftTexts(draft), citedEvidenceOf(snapshot), allowlist, read);
  // A command that may change a system, even one a runbook holds, is released only as an action a human confirms.
  const outsideActions = draftTexts({ ...draft, action_plan: [] });
  if (outsideActions.some((text) => systemChangingCommandsIn(text, read).length > 0))
    violations.push('UNCONFIRMED_CHANGE');
  return violations.length > 0
    ? { ok: false, violations }
    : { ok: true, draft: enforceHumanConfirmation(draft, read) };
}
