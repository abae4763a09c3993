import { readdir, realpath, stat } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import * as logfmt from 'logfmt';
import {
  DEFAULT_JSON_FIELDS,
  detectFormat,
  formatById,
  isValidTimeZone,
  JsonFieldNames,
  LOG_FORMAT_IDS,
  LogFormat,
  LogFormatId,
  ParseContext,
} from './formats';
import { readTextLines } from './log-line-reader';
import { LOG_TOPICS, LogTopic } from './log-source.port';

/** One `LOGS_FILE_RULES` entry: what files matching `glob` are, where detection or names would guess. */
export interface LogFileRule {
  glob: string;
  topic?: LogTopic;
  format?: LogFormatId;
  service?: string;
  timeZone?: string;
  fields?: Partial<JsonFieldNames>;
}

/** A file-name glob (`*`, `?`; `**` crosses directories) as an anchored regular expression. */
export function globToRegExp(glob: string): RegExp {
  let body = '';
  for (let i = 0; i < glob.length; i += 1) {
    const char = glob[i];
    if (char === '*' && glob[i + 1] === '*') {
      body += '.*';
      i += 1;
    } else if (char === '*') body += '[^/]*';
    else if (char === '?') body += '[^/]';
    else body += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${body}$`);
}

/** Whether a rule's glob names a file: a glob with `/` against the path in the logs directory, else the name. */
export function globMatches(glob: string, path: string): boolean {
  return globToRegExp(glob).test(glob.includes('/') ? path : basename(path));
}

/** `APPLICATION=app*.jsonl|svc-*.log,ACCESS=access.log` -> topic rules; throws a message naming the problem. */
export function parseTopicGlobs(text: string): LogFileRule[] {
  const rules: LogFileRule[] = [];
  const seen = new Set<string>();
  for (const entry of text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const [topic, globs, ...rest] = entry.split('=');
    const name = topic.trim() as LogTopic;
    if (rest.length > 0 || globs === undefined) throw new Error('every entry must be TOPIC=glob|glob');
    if (!LOG_TOPICS.includes(name)) throw new Error(`topics must be one of ${LOG_TOPICS.join(', ')}`);
    if (seen.has(name)) throw new Error(`topic ${name} is listed twice`);
    seen.add(name);
    const list = globs
      .split('|')
      .map((glob) => glob.trim())
      .filter(Boolean);
    if (list.length === 0 || list.some((glob) => glob.startsWith('/') || glob.includes('..'))) {
      throw new Error(`topic ${name} needs file globs relative to the logs directory`);
    }
    rules.push(...list.map((glob) => ({ glob, topic: name })));
  }
  return rules;
}

const FIELD_KEYS = {
  timestamp_field: 'timestamp',
  level_field: 'level',
  service_field: 'service',
  message_field: 'message',
} as const;
const RULE_KEYS = ['topic', 'format', 'service', 'time_zone', ...Object.keys(FIELD_KEYS)];

/**
 * `LOGS_FILE_RULES`: `glob: key=value …; glob: …`, keys topic, format, service, time_zone and
 * timestamp_field/level_field/service_field/message_field (JSON files only). A rule applies only to the
 * files its glob names; the first rule naming a file wins per key. Throws a message naming the problem.
 */
export function parseFileRules(text: string): LogFileRule[] {
  const rules: LogFileRule[] = [];
  for (const entry of text
    .split(';')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const colon = entry.indexOf(':');
    if (colon <= 0) throw new Error(`"${entry}" must be "glob: key=value …"`);
    const glob = entry.slice(0, colon).trim();
    if (glob.startsWith('/') || glob.includes('..'))
      throw new Error(`${glob}: globs are relative to the logs directory`);
    const pairs = logfmt.parse(entry.slice(colon + 1).trim()) as Record<string, string | boolean>;
    const rule: LogFileRule = { glob };
    for (const [key, raw] of Object.entries(pairs)) {
      if (!RULE_KEYS.includes(key))
        throw new Error(`${glob}: unknown key ${key} (one of ${RULE_KEYS.join(', ')})`);
      if (typeof raw !== 'string' || raw === '') throw new Error(`${glob}: ${key} needs a value`);
      if (key === 'topic') {
        if (!LOG_TOPICS.includes(raw as LogTopic))
          throw new Error(`${glob}: topic must be one of ${LOG_TOPICS.join(', ')}`);
        rule.topic = raw as LogTopic;
      } else if (key === 'format') {
        if (!LOG_FORMAT_IDS.includes(raw as LogFormatId)) {
          throw new Error(`${glob}: format must be one of ${LOG_FORMAT_IDS.join(', ')}`);
        }
        rule.format = raw as LogFormatId;
      } else if (key === 'service') rule.service = raw;
      else if (key === 'time_zone') {
        if (!isValidTimeZone(raw))
          throw new Error(`${glob}: time_zone ${raw} is not an IANA zone or ±HH:MM offset`);
        rule.timeZone = raw;
      } else {
        const role = FIELD_KEYS[key as keyof typeof FIELD_KEYS];
        rule.fields = { ...rule.fields, [role]: [raw] };
      }
    }
    if (rule.fields && rule.format && rule.format !== 'json') {
      throw new Error(`${glob}: *_field keys apply to format json only`);
    }
    if (Object.keys(rule).length === 1) throw new Error(`${glob}: a rule needs at least one key`);
    rules.push(rule);
  }
  return rules;
}

/** What the FILE source needs to know about the directory and its rules. */
export interface LogDirectoryConfig {
  directory: string;
  /** LOGS_FILE_RULES first, then the LOGS_JSONL_TOPICS topic rules. */
  rules: LogFileRule[];
  /** Zone for timestamps written without one (LOGS_TIME_ZONE, default UTC). */
  timeZone: string;
}

/** A file the source cannot use, with the reason (named at start-up, by doctor and in the tool result). */
export interface LogFileProblem {
  file: string;
  reason: string;
}

const COMPRESSED = /\.(gz|zip|bz2|xz|zst|lz4|7z|tgz)$/i;
const MAX_DEPTH = 4;

/**
 * Every file under the logs directory (sub-directories to depth 4, symbolic links followed when they
 * stay inside it; a file reached directly and through a link is listed once, under its own name), sorted,
 * as paths relative to it; compressed files, links leading outside and
 * unreadable directories are named as problems. Names starting with `.` are not logs and not listed.
 */
export async function listLogFiles(
  directory: string,
): Promise<{ files: string[]; problems: LogFileProblem[] }> {
  const root = await realpath(directory);
  // path in the directory -> the file it is; a file reached both directly and by a link is read once.
  const found: { rel: string; real: string; link: boolean }[] = [];
  const problems: LogFileProblem[] = [];
  const visited = new Set<string>([root]);
  const walk = async (dir: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      problems.push({ file: relative(directory, dir) || '.', reason: reasonOf(error) });
      return;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      const rel = relative(directory, path).split(sep).join('/');
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      let real = path;
      if (entry.isSymbolicLink()) {
        let target: string;
        try {
          target = await realpath(path);
        } catch (error) {
          problems.push({ file: rel, reason: `broken symbolic link (${reasonOf(error)})` });
          continue;
        }
        if (target !== root && !target.startsWith(root + sep)) {
          problems.push({ file: rel, reason: 'symbolic link leads outside the logs directory; not read' });
          continue;
        }
        real = target;
        const info = await stat(target);
        if (info.isDirectory() && visited.has(target)) continue;
        if (info.isDirectory()) visited.add(target);
        [isDir, isFile] = [info.isDirectory(), info.isFile()];
      }
      if (isDir) {
        if (depth < MAX_DEPTH) await walk(path, depth + 1);
        else problems.push({ file: rel, reason: `directory deeper than ${MAX_DEPTH} levels; not read` });
      } else if (isFile) {
        if (COMPRESSED.test(entry.name))
          problems.push({ file: rel, reason: 'compressed; decompress it to have it read' });
        else
          found.push({
            rel,
            real: entry.isSymbolicLink() ? real : await realpath(path),
            link: entry.isSymbolicLink(),
          });
      }
    }
  };
  await walk(directory, 0);
  const chosen = new Map<string, { rel: string; link: boolean }>();
  for (const file of found) {
    const kept = chosen.get(file.real);
    if (!kept || (kept.link && !file.link)) chosen.set(file.real, file);
  }
  const files = [...chosen.values()].map((file) => file.rel).sort();
  return { files, problems };
}

/** A short, safe reason for a file system error (its code, never a stack). */
export function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM') return `permission denied (${code})`;
  if (code === 'ENOENT') return 'no longer exists (ENOENT)';
  if (code === 'EISDIR') return 'is a directory (EISDIR)';
  return code ? `cannot be read (${code})` : `cannot be read (${(error as Error).message})`;
}

// Names that say what kind of log a file is, not which service wrote it.
const GENERIC =
  /^(access|access_log|error|error_log|syslog|messages|application|app|server|out|output|console|current|log|logs|json|stdout|stderr|daemon|kern|auth|journal|database|db|containers|pods|var|slow|slow[-_]?query|general|query|audit)$/i;

/** The service a path names: its stem without extensions, rotation and dates, else the nearest telling directory. */
export function serviceFromPath(path: string): string | null {
  const parts = path.split('/');
  const stem = parts[parts.length - 1]
    .replace(/(\.\d+)+$/, '')
    .replace(/(-json)?(\.(log|jsonl?|txt|out|ndjson|journal))+$/i, '')
    .replace(/[-_.]?\d{4}-?\d{2}-?\d{2}(T?\d{2,6})?$/, '');
  for (const candidate of [stem, ...parts.slice(0, -1).reverse()]) {
    if (
      candidate &&
      !GENERIC.test(candidate) &&
      !/^[0-9a-f]{12,}$/i.test(candidate) &&
      /[a-z]/i.test(candidate)
    ) {
      return candidate;
    }
  }
  return null;
}

/** The topic a name suggests when no rule names one and the format has none. */
export function topicFromPath(path: string): LogTopic {
  const name = path.toLowerCase();
  if (/(^|[/_.-])(access|access_log|nginx|httpd|apache2?|traefik|envoy)([/_.-]|$)/.test(name))
    return 'ACCESS';
  if (/(mysql|mariadb|postgres|database|slow[-_.]?query|(^|[/_.-])db([/_.-]|$))/.test(name))
    return 'DATABASE';
  return 'APPLICATION';
}

/** How the source reads one file: its format, topic, service fallback and parse context. */
export interface LogFilePlan {
  file: string;
  path: string;
  format: LogFormat;
  /** How the format was chosen. */
  formatFrom: 'RULE' | 'DETECTED';
  topic: LogTopic;
  topicFrom: 'RULE' | 'FORMAT' | 'NAME';
  /** For records that name no service: the rule's, else the path's, else null (read as `unknown`). */
  service: string | null;
  context: ParseContext;
  size: number;
  modified: number;
}

/** Non-empty lines read for detection: enough to see a format, bounded for any file. */
const SAMPLE_LINES = 50;
const SAMPLE_BYTES = 256 * 1024;

async function sampleOf(path: string): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of readTextLines(path, { to: SAMPLE_BYTES, maxLineBytes: SAMPLE_BYTES })) {
    if (line.trim() !== '') lines.push(line);
    if (lines.length >= SAMPLE_LINES) break;
  }
  return lines;
}

const planCache = new Map<string, LogFilePlan | LogFileProblem>();

/** The first value any rule naming `file` gives for `key`. */
function ruleValue<K extends keyof LogFileRule>(
  rules: LogFileRule[],
  file: string,
  key: K,
): LogFileRule[K] | undefined {
  return rules.find((rule) => rule[key] !== undefined && globMatches(rule.glob, file))?.[key];
}

/**
 * How to read one file: rules first, then detection on a sample (cached until the file changes). A file
 * that cannot be opened, or whose sample no format reads, is a problem naming the reason.
 */
export async function planLogFile(
  config: LogDirectoryConfig,
  file: string,
): Promise<LogFilePlan | LogFileProblem> {
  const path = join(config.directory, file);
  let info;
  try {
    info = await stat(path);
  } catch (error) {
    return { file, reason: reasonOf(error) };
  }
  const key = `${path}|${info.size}|${info.mtimeMs}|${config.timeZone}|${JSON.stringify(config.rules)}`;
  const cached = planCache.get(key);
  if (cached) return cached;
  const fields = ruleValue(config.rules, file, 'fields');
  const context: ParseContext = {
    timeZone: ruleValue(config.rules, file, 'timeZone') ?? config.timeZone,
    referenceTime: info.mtimeMs,
    fields: { ...DEFAULT_JSON_FIELDS, ...fields },
  };
  let sample: string[];
  try {
    sample = await sampleOf(path);
  } catch (error) {
    return { file, reason: reasonOf(error) };
  }
  const forced = ruleValue(config.rules, file, 'format') ?? (fields ? 'json' : undefined);
  const format = forced ? formatById(forced) : detectFormat(sample, context).format;
  let plan: LogFilePlan | LogFileProblem;
  if (sample.length === 0) {
    plan = { file, reason: 'empty' };
  } else if (!format) {
    plan = { file, reason: 'no known log format reads its first lines; set format= in LOGS_FILE_RULES' };
  } else {
    const ruleTopic = ruleValue(config.rules, file, 'topic');
    plan = {
      file,
      path,
      format,
      formatFrom: forced ? 'RULE' : 'DETECTED',
      topic: ruleTopic ?? format.topic ?? topicFromPath(file),
      topicFrom: ruleTopic ? 'RULE' : format.topic ? 'FORMAT' : 'NAME',
      service: ruleValue(config.rules, file, 'service') ?? serviceFromPath(file),
      context,
      size: info.size,
      modified: info.mtimeMs,
    };
  }
  if (planCache.size > 10_000) planCache.clear();
  planCache.set(key, plan);
  return plan;
}

export const isProblem = (plan: LogFilePlan | LogFileProblem): plan is LogFileProblem => 'reason' in plan;

/** Every file of the directory planned, with the problems of listing and planning. */
export async function planLogDirectory(
  config: LogDirectoryConfig,
): Promise<{ plans: LogFilePlan[]; problems: LogFileProblem[] }> {
  const { files, problems } = await listLogFiles(config.directory);
  const plans: LogFilePlan[] = [];
  for (const file of files) {
    const plan = await planLogFile(config, file);
    if (isProblem(plan)) problems.push(plan);
    else plans.push(plan);
  }
  return { plans, problems };
}
