import type { Draft } from './draft.schema';
import type { VerifiedSnapshot } from './evidence-rules';
import { normaliseForRelease } from './release-normalise';

/**
 * Deterministic release checks (README "Release checks"): code, no LLM, run on every diagnosis draft and
 * knowledge answer before its isolated semantic check. A model can be talked into repeating anything, so
 * what these find is never rewritten out of the text: the whole draft is refused (fixed fallback).
 */
export const RELEASE_VIOLATIONS = [
  'DANGEROUS_MARKUP',
  'CREDENTIAL_REQUEST',
  'MARKUP',
  'LINK',
  'EMAIL',
  'PHONE',
  'COMMAND',
  'UNCONFIRMED_CHANGE',
] as const;
export type ReleaseViolation = (typeof RELEASE_VIOLATIONS)[number];

interface Rule {
  violation: ReleaseViolation;
  pattern: RegExp;
}

/** Refused in an answer and in the documents it cites: a runbook carrying them is itself poisoned. */
const ALWAYS_REFUSED: readonly Rule[] = [
  {
    violation: 'DANGEROUS_MARKUP',
    pattern:
      /<\/?(?:script|iframe|frame|object|embed|style|form|svg|img|link|meta|base|math|template)\b|<[^<>]*\son[a-z]+\s*=|\b(?:javascript|vbscript):|\bdata:text\/html/giu,
  },
];

const CREDENTIAL =
  /api[\s_-]?key|access[\s_-]?key|secret|password|passwd|passcode|token|credential|private[\s_-]?key|cookie|one[\s-]?time[\s-]?code|\botp\b|验证码|密钥|密码|口令|令牌|凭证|凭据|私钥/iu;
const SECOND_PERSON = /\byour?\b|\byou'?re\b|您|你/iu;
const SOLICIT_WORDS =
  'paste|send|enter|type|share|provide|submit|post|upload|e-?mail|forward|give|tell|reply|input|disclose|dm|message|hand\\s+over';
const SOLICIT = new RegExp(
  String.raw`\b(?:${SOLICIT_WORDS})\b|粘贴|发送|发给|提供|输入|提交|上传|告诉|填写|回复`,
  'iu',
);
/** A request, not an observation: a modal or "please" before the verb, or the sentence opens with it. */
const DIRECTIVE = new RegExp(
  String.raw`\b(?:must|should|shall|needs?\s+to|has\s+to|have\s+to|is\s+(?:required|asked|expected)\s+to|are\s+(?:required|asked|expected)\s+to|please|kindly)\b[^.!?\n]{0,40}?\b(?:${SOLICIT_WORDS})\b|^\s*(?:now\s+|then\s+|first\s+|immediately\s+)?(?:${SOLICIT_WORDS})\b|必须|需要|务必|请`,
  'iu',
);

/** Public top-level domains seen in links, plus the reserved test names; never file extensions such as .sh or .py. */
const TLDS =
  'com|net|org|info|biz|io|co|ai|dev|me|tv|cc|us|uk|de|fr|ru|cn|jp|kr|in|br|nl|eu|su|ws|xyz|top|site|online|store|shop|tech|live|link|click|support|help|email|cloud|app|page|win|vip|fun|icu|buzz|tk|ml|ga|cf|gq|pw|ly|gg|to|test|example|invalid';
const HOST = String.raw`(?<![\w@./-])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:${TLDS})(?::\d{1,5})?(?![\w-]|\.[\w-])(?:\/[^\s<>"'\x60)\]，。；、]*)?`;
const IP = String.raw`(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}`;
/** An address a reader could be sent to. A private address with a port and no path is ordinary incident data. */
const IP_ENDPOINT = String.raw`${IP}(?::\d{1,5}\/[^\s<>"'\x60)\]]*|\/[^\s<>"'\x60)\]]+|:\d{1,5}(?![\d.]))`;
const PRIVATE_ENDPOINT = /^(?:10\.|127\.|192\.168\.|172\.(?:1[6-9]|2\d|3[01])\.)[\d.]+:\d{1,5}$/u;

/** Refused unless a cited curated document holds the same text (a runbook may legitimately hold a link or a command). */
const UNLESS_IN_DOCUMENT: readonly Rule[] = [
  { violation: 'MARKUP', pattern: /<!--|<!\[CDATA\[|<\?xml|<\/?[a-z][a-z0-9-]*(?:\s+[^<>]*)?\/?>/giu },
  {
    violation: 'LINK',
    pattern: new RegExp(
      [
        String.raw`\b(?:https?|ftp|file|sftp|ssh|smb|mailto|tel):\/?\/?[^\s<>"'\x60)\]，。；、]+`,
        String.raw`\bwww\.[^\s<>"'\x60)\]，。；、]+`,
        String.raw`\[[^\]\n]{0,200}\]\([^)\s]{1,500}\)`,
        String.raw`(?<![\w:/])\/\/[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*(?::\d{1,5})?(?:\/[^\s<>"'\x60)\]]*|(?=\.[a-z]))`,
        String.raw`(?<![\w:/])\/\/[a-z0-9-]+(?:\.[a-z0-9-]+)+`,
        HOST,
        IP_ENDPOINT,
      ].join('|'),
      'giu',
    ),
  },
  { violation: 'EMAIL', pattern: /[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+/giu },
  {
    violation: 'PHONE',
    pattern:
      /\+\d{1,3}[\s.-]?(?:\(\d{1,4}\)[\s.-]?)?\d{2,4}(?:[\s.-]?\d{2,4}){1,4}|(?<![\w.-])\(?\d{3,4}\)?[\s.-]\d{3,4}[\s.-]\d{3,5}(?![\w-]|\.\d)|(?<![\w-])\d{3,4}-\d{7,8}(?![\w-])|(?<!\d)1[3-9]\d{9}(?!\d)|(?<!\d)[48]00[\s.-]?\d{3}[\s.-]?\d{4}(?!\d)/gu,
  },
  {
    violation: 'COMMAND',
    pattern: new RegExp(
      [
        // SQL that changes data, schema or grants, and SELECT statements
        String.raw`\b(?:drop|truncate|alter|create|rename)\s+(?:table|database|schema|index|view|user|procedure|function|trigger)\b(?:\s+if\s+(?:not\s+)?exists)?\s*[\w.\x60"]*`,
        String.raw`\bdelete\s+from\s+[\w.\x60"]+`,
        String.raw`\binsert\s+(?:ignore\s+)?into\s+[\w.\x60"]+`,
        String.raw`\bupdate\s+[\w.\x60"]+\s+set\b`,
        String.raw`\breplace\s+into\s+[\w.\x60"]+`,
        String.raw`\b(?:grant|revoke)\s+\w+(?:\s*,\s*\w+)*\s+on\b`,
        String.raw`\bflush\s+(?:privileges|tables|logs|hosts|status)\b`,
        String.raw`\bflush(?:all|db)\b`,
        String.raw`\bselect\s+(?:\*|count\s*\(|[\w.\x60"]+\s*,)[^;\n]{0,300}?\s+from\s+[\w.\x60"]+`,
        // shell / operator CLIs
        String.raw`\b(?:sudo\s+\S+|su\s+-|rm\s+-[a-z]+|kill\s+-\w+|killall\s+\S+|pkill\s+\S+|systemctl\s+\w+|kubectl\s+\w+|docker\s+(?:run|exec|rm|rmi|kill|stop|restart|pull|push|compose)\b|helm\s+(?:install|upgrade|uninstall|rollback|delete)\b|curl\s+\S+|wget\s+\S+|redis-cli\b|mysqladmin\b|mysql\s+-\w+|chmod\s+\S+|chown\s+\S+|shutdown\s+-\w+|iptables\s+\S+|ssh\s+(?:-\w+|[\w.-]+@)|scp\s+\S+|nc\s+-\w+|(?:ba)?sh\s+-c|powershell\b|eval\s*\()`,
        // destructive verbs with long options
        String.raw`\b(?:rm|rmdir|shred|dd|mkfs(?:\.\w+)?|truncate|kill|chmod|chown|mv|reboot|halt|poweroff|shutdown)\s+--[a-z][\w-]*`,
        String.raw`\bdd\s+if=\S+|\bmkfs\.\w+`,
        // interpreters told to run code, and code that runs code
        String.raw`\b(?:python[23]?(?:\.\d+)?|perl|ruby|node|nodejs|php|bash|sh|zsh|dash|ksh|pwsh|powershell|lua|osascript)(?:\.exe)?\s+(?:-[a-z]+\s+)*-[a-z]*[ce]\b`,
        String.raw`\bos\.(?:system|popen|exec\w*)\s*\(|\bsubprocess\.\w+|\b__import__\s*\(|\bchild_process\b|\bRuntime\.getRuntime\(\)\.exec`,
        // shells bound to sockets, piped installers, netcat with a program
        String.raw`\/dev\/(?:tcp|udp)\/\S*`,
        String.raw`\b(?:ba|z|k|da)?sh\s+-i\b`,
        String.raw`\|\s*(?:sudo\s+)?(?:ba|z|k|da)?sh\b`,
        String.raw`\b(?:nc|ncat|netcat|socat)\b[^\n]{0,120}?(?:\s-[a-z]*e\s+\S+|\bexec:\S+|\s-c\s+\S+)`,
        String.raw`\bmkfifo\s+\S+`,
      ].join('|'),
      'giu',
    ),
  },
];

const COMMAND_RULE = UNLESS_IN_DOCUMENT.find((rule) => rule.violation === 'COMMAND')!;
const READ_ONLY_SELECT = /^select\b/iu;

const flatten = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').trim();

function credentialRequested(text: string): boolean {
  return text
    .split(/[.!?。！？\n]+/u)
    .some(
      (sentence) =>
        CREDENTIAL.test(sentence) &&
        SOLICIT.test(sentence) &&
        (SECOND_PERSON.test(sentence) || DIRECTIVE.test(sentence)),
    );
}

function alwaysRefused(text: string): ReleaseViolation[] {
  const found = new Set<ReleaseViolation>();
  for (const rule of ALWAYS_REFUSED) if (new RegExp(rule.pattern).test(text)) found.add(rule.violation);
  if (credentialRequested(text)) found.add('CREDENTIAL_REQUEST');
  return [...found];
}

/** What an answer cites, as the release checks need it. */
export interface CitedEvidence {
  /**
   * The cited curated knowledge documents (uploaded by a knowledge admin): the only evidence that may
   * supply a link, address, phone number, markup or command, and always-refused content in one refuses.
   * Rows, log lines and tool arguments are data about the incident, never instructions to the reader,
   * so they supply nothing here.
   */
  documents: readonly string[];
  /**
   * The strings of cited rows and log lines. They may only supply a bare host name (no scheme, port or
   * path): the incident's own hosts are named by the data, and naming one sends the reader nowhere.
   */
  data?: readonly string[];
}

const BARE_HOST = /^[a-z0-9-]+(?:\.[a-z0-9-]+)+$/iu;

function matchesOf(rule: Rule, text: string): string[] {
  return [...text.matchAll(new RegExp(rule.pattern))]
    .map((match) => flatten(match[0]).replace(/[.,;:!?]+$/u, ''))
    .filter((item) => item.length > 0 && !(rule.violation === 'LINK' && PRIVATE_ENDPOINT.test(item)));
}

/** The shell/SQL commands in a text (normalised first); read-only SELECTs excluded. */
export function systemChangingCommandsIn(text: string): string[] {
  return matchesOf(COMMAND_RULE, normaliseForRelease(text)).filter((item) => !READ_ONLY_SELECT.test(item));
}

/**
 * What in `texts` (the user-visible parts of an answer) must not be released, given the cited evidence:
 * always-refused content in the answer or a cited document, and links, markup, e-mail addresses, phone
 * numbers and shell/SQL commands that no cited document holds. Every text is normalised first, so a
 * disguise (entities, fullwidth, zero-width, defanging) reads as what it stands for. Empty = releasable.
 */
export function findReleaseViolations(texts: readonly string[], evidence: CitedEvidence): ReleaseViolation[] {
  const found = new Set<ReleaseViolation>();
  const answer = texts.map(normaliseForRelease);
  const documents = evidence.documents.map(normaliseForRelease);
  const documentText = flatten(documents.join('\n'));
  const dataText = flatten((evidence.data ?? []).map(normaliseForRelease).join('\n'));
  const supplied = (rule: Rule, item: string) =>
    documentText.includes(item) ||
    (rule.violation === 'LINK' && BARE_HOST.test(item) && dataText.includes(item));
  for (const text of [...answer, ...documents]) for (const v of alwaysRefused(text)) found.add(v);
  for (const text of answer) {
    for (const rule of UNLESS_IN_DOCUMENT) {
      for (const item of matchesOf(rule, text)) if (!supplied(rule, item)) found.add(rule.violation);
    }
  }
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

/** The draft with every system-changing action forced to `requires_human_confirmation: true`. */
export function enforceHumanConfirmation(draft: Draft): Draft {
  return {
    ...draft,
    action_plan: draft.action_plan.map((item) =>
      changesSystems(item.action) || systemChangingCommandsIn(item.action).length > 0
        ? { ...item, requires_human_confirmation: true }
        : item,
    ),
  };
}

/** Every user-visible text of a draft (what the report releases besides the references). */
export function draftTexts(draft: Draft): string[] {
  return [
    ...(draft.conclusion ? [draft.conclusion.text] : []),
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

/** Every string of the cited knowledge documents; rows, log lines and scopes (tool arguments) supply nothing. */
export function citedEvidenceOf(snapshot: VerifiedSnapshot): CitedEvidence {
  const cited = [...snapshot.cited.values()];
  const isDocument = (evidence: (typeof cited)[number]) => evidence.source_type === 'KNOWLEDGE';
  return {
    documents: stringsOf(cited.filter(isDocument).map((evidence) => evidence.values)),
    data: stringsOf(cited.filter((evidence) => !isDocument(evidence)).map((evidence) => evidence.values)),
  };
}

export type DraftReleaseCheck = { ok: true; draft: Draft } | { ok: false; violations: ReleaseViolation[] };

/** The release checks for a diagnosis draft against the evidence it cites; on success the confirmation-enforced draft. */
export function checkDraftRelease(draft: Draft, snapshot: VerifiedSnapshot): DraftReleaseCheck {
  const violations = findReleaseViolations(draftTexts(draft), citedEvidenceOf(snapshot));
  // A system-changing command, even one a runbook holds, is released only as an action a human confirms.
  const outsideActions = draftTexts({ ...draft, action_plan: [] });
  if (outsideActions.some((text) => systemChangingCommandsIn(text).length > 0))
    violations.push('UNCONFIRMED_CHANGE');
  return violations.length > 0
    ? { ok: false, violations }
    : { ok: true, draft: enforceHumanConfirmation(draft) };
}
