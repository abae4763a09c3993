import { commandReading } from './release-normalise';

/*
 * Commands, found by their shape in the command reading of a text (release-normalise.ts): option flags,
 * pipes, chains, redirections, substitutions, shell prompts, scripts run by path, the opening of a SQL
 * statement, code that runs code. A few known operator CLIs whose arguments need no punctuation
 * (`kubectl delete namespace prod`) are named as well. docs/release-gate.md "Commands".
 */

/**
 * Shapes that mark a token inside a command (a flag, a pipe's left side, a redirection, a variable, a
 * function call): the command itself may start at an earlier word.
 */
const INSIDE_SHAPES: readonly RegExp[] = [
  // option flags after a word: `tool -rf`, `tool --force`, `tool --grace-period=0`
  /(?<=\S\s+)--?[a-z][\w-]*(?:=\S*)?(?=\s|$|[;|&)])/giu,
  // pipes, chains and background jobs between commands; redirections to files and descriptors
  /\S\s*(?:\|\|?|&&)\s*[\w./~$'"`\\-]/gu,
  /\d?>>?\s*[&/~$]|&>|<<<?\s*\S|<\(/gu,
  // command substitution, parameter expansion, a shell variable; functions that run or cost
  /\$\(|\$\{|`[^`\n]*[\s/|;$-][^`\n]*`|\$[A-Z_][A-Z0-9_]+\b/gu,
  /\b(?:sleep|benchmark|load_file|unhex|from_base64|char|concat|sys_exec|sys_eval)\s*\(/giu,
  // code that runs code, interpreters told to run code, sockets bound to shells
  /\b(?:os\.(?:system|popen|exec\w*)|subprocess\.\w+|__import__|eval|exec|system|popen|spawn|execSync|spawnSync|Runtime\.getRuntime\(\)\.exec|Invoke-Expression|iex|Start-Process)\s*\(|\bchild_process\b|\bInvoke-Expression\b|\bIEX\b/gu,
  /\/dev\/(?:tcp|udp)\/\S*|\bmkfifo\s+\S+|\bdd\s+if=\S+|\bmkfs(?:\.\w+)?\b/giu,
  /\bflush(?:all|db)\b/giu,
];

/** Shapes that mark a command's first word: a prompt, a script by path, a SQL statement's opening, a named CLI. */
const HEAD_SHAPES: readonly RegExp[] = [
  // a shell prompt
  /(?:^|\n)\s*(?:[$#%]|PS>|>>>)\s+[a-z]/giu,
  // a script or binary run by path
  /(?<![\w/])(?:\.{1,2}|~)?\/[\w./-]*[\w-]\.(?:sh|bash|zsh|py|pl|rb|ps1|bat|cmd|exe|js|php)\b|(?<![\w/.])\.\.?\/[\w.-]+/giu,
  // the opening of a SQL statement that reads, changes data, schema, grants or the server
  /\b(?:delete|insert|replace|upsert)\s+(?:(?:low_priority|quick|ignore|delayed|high_priority)\s+)*(?:from|into)\b/giu,
  /\binsert\s+(?:\w+\s+)?[\w.`"]+\s*(?:\(|values\b|set\b|select\b)/giu,
  /\bupdate\s+(?:(?:low_priority|ignore)\s+)*[\w.`"]+(?:\s+\w+)?\s+set\b/giu,
  /\b(?:drop|create|alter|truncate|rename|optimize|repair|analyze|check|checksum)\s+(?:(?:temporary|or\s+replace|online|offline|ignore|definer\s*=\s*\S+|algorithm\s*=\s*\S+|unique|fulltext|spatial)\s+)*(?:table|tables|database|databases|schema|index|view|user|role|procedure|function|trigger|event|server|tablespace|sequence|logfile|package)\b/giu,
  /\btruncate\s+[\w.`"]*[_.`"\d][\w.`"]*/giu,
  /\b(?:grant|revoke)\s+[\w\s,()]+?\s+(?:on|to|from)\b/giu,
  /\bset\s+(?:global|session|persist(?:_only)?|local|password|names|transaction|@@?\w|sql_\w+|autocommit|foreign_key_checks|[\w.]+\s*=)/giu,
  /\b(?:call|exec|execute|do|prepare|deallocate|handler)\s+[a-z_`"][\w.`"]*\s*(?:\(|from\b|using\b|open\b|read\b|;)|\b(?:call|exec|execute)\s+[a-z_`"][\w`"]*[_.`"][\w.`"]*/giu,
  /\b(?:load\s+(?:data|xml)|lock\s+tables?|unlock\s+tables|kill\s+(?:query|connection)|shutdown\b|flush\s+\w+|purge\s+(?:binary|master)\s+logs|change\s+(?:master|replication)|reset\s+(?:master|slave|replica|query)|(?:start|stop)\s+(?:slave|replica|transaction)|(?:install|uninstall)\s+(?:plugin|soname)|into\s+(?:outfile|dumpfile))\b/giu,
  /\bselect\s+(?:distinct\s+)?(?:\*|[\w.`"]+\s*\(|[\w.`"]+\s*,)[^;\n]{0,300}?\bfrom\s+[\w.`"]+/giu,
  // elevated or remote execution, and operator CLIs whose subcommands are plain words
  /\b(?:sudo|doas|runas|pkexec)\s+\S|(?<![\w-])su\s+-/giu,
  /(?<![\w-])(?:kubectl|helm|docker|podman|crictl|systemctl|launchctl|iptables|nft|ufw|redis-cli|mysqladmin|mongosh|psql|aws|gcloud|terraform|ansible|ansible-playbook|ssh|scp|rsync|ncat|netcat|socat|curl|wget|powershell|pwsh|crontab|chmod|chown|chattr|rmdir|killall|pkill|shred|mkfs|iex)\s+(?=\S)[\w./:@=-]+/giu,
  // commands named by English words run only with an argument that is code: a number, flag or path
  /(?<![\w-])(?:rm|mv|cp|kill|service|mysql|mongo|nc|halt|reboot|shutdown|poweroff|eval|exec|source)\s+(?:[-/~.$]|\d)/giu,
];

const SHAPES: readonly (readonly [RegExp, boolean])[] = [
  ...INSIDE_SHAPES.map((shape) => [shape, false] as const),
  ...HEAD_SHAPES.map((shape) => [shape, true] as const),
];

/** Words that end a command's span: a command is not followed by them, prose is. */
const PROSE_STOPS = new Set([
  'after',
  'before',
  'once',
  'unless',
  'until',
  'because',
  'since',
  'afterwards',
  'again',
  'immediately',
  'carefully',
  'during',
  'now',
  'first',
  'then',
  'later',
  'manually',
]);
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

interface Token {
  text: string;
  start: number;
  end: number;
}

/** One command found in a text: its clause's tokens, where the command starts, and where its code ends. */
export interface CommandSpan {
  tokens: string[];
  /** The first token a shape matched in: the command cannot start later than this. */
  marker: number;
  /** The first token of prose after the command (a stop word or a CJK word), or the clause's length. */
  proseFrom: number;
  /** Read-only: a SELECT with nothing that writes. */
  readOnly: boolean;
  /** The marker is the command's first word (HEAD_SHAPES), not a token inside it. */
  markerIsHead: boolean;
}

const canonicalToken = (text: string) => text.toLowerCase().replace(/[.,;:!?。，；：！？]+$/u, '');

function tokensOf(clause: string, offset: number): Token[] {
  return [...clause.matchAll(/\S+/gu)].map((match) => ({
    text: canonicalToken(match[0]),
    start: offset + match.index,
    end: offset + match.index + match[0].length,
  }));
}

/** Clauses: lines, and sentences (a stop followed by a capital or a CJK character). */
function clausesOf(text: string): { clause: string; offset: number }[] {
  const clauses: { clause: string; offset: number }[] = [];
  const boundary = /\n|[。！？]|(?<=[.!?])\s+(?=[A-Z\p{Script=Han}])/gu;
  let from = 0;
  for (const match of text.matchAll(boundary)) {
    clauses.push({ clause: text.slice(from, match.index), offset: from });
    from = match.index + match[0].length;
  }
  clauses.push({ clause: text.slice(from), offset: from });
  return clauses.filter((item) => item.clause.trim().length > 0);
}

const WRITES =
  /\b(?:into|update|delete|insert|replace|drop|create|alter|truncate|grant|revoke|set|call|exec|execute|load|lock|kill|shutdown|flush|sleep|benchmark|load_file|outfile|dumpfile)\b|;|\/\*/iu;

/** Every command of a text, by shape, in its command reading; empty for plain prose. */
export function commandSpans(text: string, canonical?: string): CommandSpan[] {
  return spansOf(commandReading(text, canonical));
}

/**
 * Every command of a text as it is written, by the same shapes, with no reading applied: what a reader
 * copies. Provenance compares these, so a command vouched for only once a reading changed it (a comment
 * or quote dropped, a look-alike letter folded, a blob decoded) is not vouched for as written.
 */
export function writtenCommandSpans(text: string): CommandSpan[] {
  return spansOf(text);
}

function spansOf(reading: string): CommandSpan[] {
  const clauses = clausesOf(reading).map(({ clause, offset }) => tokensOf(clause, offset));
  const ends: number[] = [];
  const owners: [number, number][] = [];
  clauses.forEach((tokens, clause) =>
    tokens.forEach((token, index) => {
      ends.push(token.end);
      owners.push([clause, index]);
    }),
  );
  if (ends.length === 0) return [];
  // Each shape runs once over the whole reading; a match marks the token it starts in (true: as a head).
  const markers = clauses.map(() => new Map<number, boolean>());
  for (const [shape, head] of SHAPES)
    for (const match of reading.matchAll(shape)) {
      const at = match.index + (match[0].length - match[0].trimStart().length);
      let low = 0;
      let high = ends.length - 1;
      while (low < high) {
        const middle = (low + high) >> 1;
        if (ends[middle] > at) high = middle;
        else low = middle + 1;
      }
      if (ends[low] > at) {
        const [clause, index] = owners[low];
        markers[clause].set(index, head || markers[clause].get(index) === true);
      }
    }
  const spans: CommandSpan[] = [];
  clauses.forEach((tokens, clause) => {
    if (markers[clause].size === 0) return;
    const texts = tokens.map((token) => token.text);
    // After a stop word the command has ended; a later shape is a command of its own, and so is one
    // that starts in the stop word itself (`… now | nc host 4444`: the pipe's left side is `now`).
    let next = 0;
    for (const marker of [...markers[clause].keys()].sort((x, y) => x - y)) {
      if (marker < next) continue;
      let proseFrom = texts.length;
      for (let i = marker + 1; i < texts.length; i++)
        if (PROSE_STOPS.has(texts[i]) || CJK.test(texts[i])) {
          proseFrom = i;
          break;
        }
      const body = texts.slice(marker, proseFrom).join(' ');
      spans.push({
        tokens: texts,
        marker,
        proseFrom,
        readOnly: /^select\b/u.test(texts[marker] ?? '') && !WRITES.test(body.replace(/^select\b/u, '')),
        markerIsHead: markers[clause].get(marker) === true,
      });
      next = proseFrom;
    }
  });
  return spans;
}

/**
 * The commands the runbooks hold (their `commandSpans`), one per line, each from its clause's start to
 * where the command ends, as ` tok tok tok `, so a search compares whole tokens and ends where the
 * runbook's command ends.
 */
export function commandCorpus(spans: readonly (readonly CommandSpan[])[]): string {
  const lines = spans.flatMap((documentSpans) =>
    documentSpans.map((span) => ` ${span.tokens.slice(0, span.proseFrom).join(' ')} `),
  );
  return `\n${lines.join('\n')}\n`;
}

/** Words after which a command may start: a reader is being told to run what follows. */
const LEAD_WORDS = new Set([
  'run',
  'execute',
  'exec',
  'use',
  'using',
  'with',
  'via',
  'try',
  'type',
  'enter',
  'invoke',
]);

/**
 * Where a command marked inside (INSIDE_SHAPES) may start: at the clause's start, or after a colon, a
 * CJK word, a stop word or a word that introduces one (`run`, `use`…). Not after any other token: the
 * word before a flag or pipe is part of the command (`evilcmd -rf /tmp/x` is marked at `-rf`) unless the
 * text says where the command starts.
 */
function mayStartAt(tokens: readonly string[], start: number): boolean {
  if (start === 0) return true;
  const before = tokens[start - 1];
  return /[:：]$/u.test(before) || CJK.test(before) || PROSE_STOPS.has(before) || LEAD_WORDS.has(before);
}

/**
 * Whether a runbook holds the command exactly: the clause from a token where a command may start, no
 * later than the command's first shape, up to where prose starts is, token for token, the end of a
 * command the runbook holds. A planted prefix (`sudo`, a command word before a vouched flag) or suffix
 * (`; rm -rf /`, `TO attacker`) is not in it, nor is a cut one (`--force` without the runbook's `--dry-run`).
 */
export function commandVouched(span: CommandSpan, corpus: string): boolean {
  for (let start = 0; start <= span.marker; start++)
    if (
      (span.markerIsHead || mayStartAt(span.tokens, start)) &&
      corpus.includes(` ${span.tokens.slice(start, span.proseFrom).join(' ')} \n`)
    )
      return true;
  return false;
}
