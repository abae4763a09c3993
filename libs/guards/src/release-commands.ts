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

/**
 * Backticks and parentheses around a command are prose's, not the command's (`` `kubectl get pods` ``,
 * "(kubectl logs …)"): dropped at a token's edges, a parenthesis only when it has no partner inside.
 */
function unwrapped(token: string): string {
  let text = token.replace(/^`+|`+$/gu, '');
  if (!text.includes(')')) text = text.replace(/^\(+/u, '');
  if (!text.includes('(')) text = text.replace(/\)+$/u, '');
  return text;
}

// A colon stays: it tells where a command starts (`Restart: kubectl …`) and is part of `scp f host:`.
const canonicalToken = (text: string) =>
  unwrapped(text.toLowerCase().replace(/[.,;!?。，；！？]+$/u, '')).replace(/[.,;!?。，；！？]+$/u, '');

/**
 * A token as written, for provenance: shells and paths are case-sensitive (`$CACHE_DIR` is not
 * `$cache_dir`, `-avN` is not `-avn`), so only a plain word's case is folded (SQL keywords), and only
 * a sentence's closing mark is dropped — not `?` or `!` (globs, history) nor a dot after a dot or slash
 * (`cache/..` is the parent).
 */
function writtenToken(text: string): string {
  const closing = (value: string) => value.replace(/[,;。，；！？]+$/u, '').replace(/(?<![./])\.$/u, '');
  const token = closing(unwrapped(closing(text)));
  return /^[A-Za-z]+$/u.test(token) ? token.toLowerCase() : token;
}

/** Tokens whose raw text holds code: a path, variable, pipe, chain, redirection, assignment or flag. */
const CODE_IN = /[/$|&;<>`=\\]|(?:^|\s)--?[A-Za-z]/u;

function tokensOf(clause: string, offset: number): Token[] {
  return [...clause.matchAll(/\S+/gu)].map((match) => ({
    text: match[0],
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
  /\b(?:into|update|delete|insert|replace|drop|create|alter|truncate|grant|revoke|set|call|exec|execute|load|lock|kill|shutdown|flush|sleep|benchmark|load_file|outfile|dumpfile|for\s+update|share\s+mode|for\s+share)\b|;|\/\*/iu;
/**
 * Functions a read-only SELECT may call: aggregates, arithmetic, dates and strings. Any other function
 * (`pg_terminate_backend`, `sys_exec`, a stored function) may change something, so the SELECT is not
 * read-only: a closed set, as no list of functions with effects could be complete.
 */
const PURE_FUNCTIONS = new Set(
  (
    'count sum avg min max group_concat std stddev variance abs ceil ceiling floor round truncate mod ' +
    'greatest least coalesce ifnull nullif if case cast convert concat concat_ws lower upper lcase ucase ' +
    'length char_length substring substr left right trim ltrim rtrim replace locate instr date time year ' +
    'month day hour minute second week now current_timestamp curdate curtime date_format date_add ' +
    'date_sub datediff timestampdiff timestampadd unix_timestamp from_unixtime extract interval json_extract'
  ).split(' '),
);
const FUNCTION_CALL = /([a-z_][\w.]*)\s*\(/giu;

/** Whether a SELECT's body calls only functions known to be pure. */
function callsOnlyPure(body: string): boolean {
  for (const [, name] of body.matchAll(FUNCTION_CALL))
    if (!PURE_FUNCTIONS.has(name.toLowerCase()) && !['in', 'exists', 'values'].includes(name.toLowerCase()))
      return false;
  return true;
}

/** Every command of a text, by shape, in its command reading; empty for plain prose. */
export function commandSpans(text: string, canonical?: string): CommandSpan[] {
  const reading = commandReading(text, canonical);
  return spansOf(reading, marked(reading), false);
}

/**
 * Every command of a text in its command reading and as it is written, by the same shapes, with no
 * reading applied to the second: what a reader copies. Provenance compares both, so a command vouched for
 * only once a reading changed it (a comment or quote dropped, a look-alike letter folded, a blob decoded)
 * is not vouched for as written. A text the command reading leaves as it is is marked once.
 */
export function commandSpansBothWays(
  text: string,
  canonical: string,
): { spans: CommandSpan[]; written: CommandSpan[] } {
  const reading = commandReading(text, canonical);
  const readingMarks = marked(reading);
  const writtenMarks = reading === text ? readingMarks : marked(text);
  return { spans: spansOf(reading, readingMarks, false), written: spansOf(text, writtenMarks, true) };
}

/** A reading's clauses, their tokens as they stand, and the tokens each shape marked (true: as a head). */
interface Marked {
  clauses: Token[][];
  markers: Map<number, boolean>[];
}

function marked(reading: string): Marked {
  const clauses = clausesOf(reading).map(({ clause, offset }) => tokensOf(clause, offset));
  const ends: number[] = [];
  const owners: [number, number][] = [];
  clauses.forEach((tokens, clause) =>
    tokens.forEach((token, index) => {
      ends.push(token.end);
      owners.push([clause, index]);
    }),
  );
  const markers = clauses.map(() => new Map<number, boolean>());
  if (ends.length === 0) return { clauses, markers };
  // Each shape runs once over the whole reading; a match marks the token it starts in.
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
  return { clauses, markers };
}

function spansOf(reading: string, { clauses, markers }: Marked, written: boolean): CommandSpan[] {
  const spans: CommandSpan[] = [];
  clauses.forEach((tokens, clause) => {
    if (markers[clause].size === 0) return;
    const texts = tokens.map((token) => (written ? writtenToken(token.text) : canonicalToken(token.text)));
    // After a stop word or a shell comment's `#` the command has ended, if prose follows: a later shape
    // is a command of its own, and so is one that starts in the stop word (`… now | nc host 4444`). If code follows
    // (`rm -rf /tmp/x now /var /etc`, `…; then poweroff; fi`), a shell reads on: the command goes on too.
    const rest = (from: number) => reading.slice(tokens[from].start, tokens[tokens.length - 1].end);
    let next = 0;
    for (const marker of [...markers[clause].keys()].sort((x, y) => x - y)) {
      if (marker < next) continue;
      let proseFrom = texts.length;
      for (let i = marker + 1; i < texts.length; i++)
        if (PROSE_STOPS.has(texts[i]) || CJK.test(texts[i]) || texts[i] === '#') {
          if (!CODE_IN.test(rest(i))) proseFrom = i;
          break;
        }
      const body = texts.slice(marker, proseFrom).join(' ');
      spans.push({
        tokens: texts,
        marker,
        proseFrom,
        readOnly:
          /^select\b/u.test(texts[marker] ?? '') &&
          !WRITES.test(body.replace(/^select\b/u, '')) &&
          callsOnlyPure(body),
        markerIsHead: markers[clause].get(marker) === true,
      });
      next = proseFrom;
    }
  });
  return spans;
}

/** The commands the runbooks hold: each as its clause's text up to where it ends, with its span. */
export type CommandCorpus = readonly { text: string; span: CommandSpan }[];

/**
 * The commands the runbooks hold (their spans), each kept as ` tok tok tok` from its clause's start to
 * where the command ends: a draft's command is looked up as the end of one of them, starting where the
 * runbook's command may start (`startAllowed`), so a runbook's `# rm -rf /x` or `DRY_RUN=1 rm -rf /x`
 * does not hold `rm -rf /x`. Kept whole, not as every suffix: a runbook paragraph of n tokens costs n.
 */
export function commandCorpus(spans: readonly (readonly CommandSpan[])[]): CommandCorpus {
  return spans.flat().map((span) => ({ text: ` ${span.tokens.slice(0, span.proseFrom).join(' ')}`, span }));
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

/** A token that is code, not prose: what stands before a command's first word then belongs to it. */
const PREFIX_CODE = /[/$|&;<>`=\\#]|^-/u;

/**
 * Where a span's command may start. Marked at its first word (HEAD_SHAPES), anywhere the token before
 * is prose, not code (`KUBECONFIG=prod kubectl …`, `# rm -rf …`, `-- DROP TABLE …` do not start at the
 * command word). Marked inside (INSIDE_SHAPES), only at the clause's start or after a colon, a CJK word,
 * a stop word or a word that introduces a command (`run`, `use`…): the word before a flag or pipe is
 * part of the command (`evilcmd -rf /tmp/x` is marked at `-rf`) unless the text says where it starts.
 */
function startAllowed(span: CommandSpan, start: number): boolean {
  if (start === 0) return true;
  const before = span.tokens[start - 1];
  if (span.markerIsHead) return !PREFIX_CODE.test(before);
  return /[:：]$/u.test(before) || CJK.test(before) || PROSE_STOPS.has(before) || LEAD_WORDS.has(before);
}

/**
 * Whether a runbook holds the command exactly: the clause from a token where the command may start, no
 * later than the command's first shape, up to where prose starts is, token for token, a command the
 * runbook holds from where its own may start. A planted prefix (`sudo`, a command word before a vouched
 * flag, an assignment) or suffix (`; rm -rf /`, `TO attacker`) is not in it, nor is a cut one
 * (`--force` without the runbook's `--dry-run`), nor one the runbook comments out (`#`, `--`).
 */
export function commandVouched(span: CommandSpan, corpus: CommandCorpus): boolean {
  for (let start = 0; start <= span.marker; start++) {
    if (!startAllowed(span, start)) continue;
    const command = span.tokens.slice(start, span.proseFrom);
    const text = ` ${command.join(' ')}`;
    for (const held of corpus) {
      const from = held.span.proseFrom - command.length;
      if (from >= 0 && from <= held.span.marker && held.text.endsWith(text) && startAllowed(held.span, from))
        return true;
    }
  }
  return false;
}
