import { statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { validateEnv } from '@app/config';
import {
  globToRegExp,
  inspectLogFile,
  jsonlFieldsOf,
  LogFileReport,
  logFileWarning,
  parseTopicGlobs,
  ToolsEnv,
} from '@app/tools';

/**
 * `npm run logs-check -- <dir>`: what the FILE log source understands of each file in `dir`, with the
 * same topic globs (LOGS_JSONL_TOPICS) and field settings (LOGS_JSONL_*_FIELD) the server uses.
 * Exit: 0 every mapped file is fully readable, 1 some lines or files are not, 2 usage or config error.
 */
function describe(report: LogFileReport): string {
  const fields = Object.entries(report.fields)
    .map(([role, names]) => {
      const used = Object.entries(names).map(([name, count]) => `${name} (${count})`);
      return `${role}: ${used.length > 0 ? used.join(', ') : '-'}`;
    })
    .join('; ');
  const levels = Object.entries(report.levels)
    .map(([level, count]) => `${level} ${count}`)
    .join(', ');
  const bad = report.lines - report.readable;
  return [
    `${report.file}  topic: ${report.topic ?? 'none (no LOGS_JSONL_TOPICS glob matches; never searched)'}`,
    `  lines: ${report.lines}, readable: ${report.readable}, unreadable: ${bad}` +
      (bad > 0
        ? ` (not JSON ${report.unreadable.NOT_JSON}, no timestamp ${report.unreadable.NO_TIMESTAMP}, no message ${report.unreadable.NO_MESSAGE}; first at line ${report.firstUnreadableLine})`
        : ''),
    `  time range: ${report.from ?? '-'} .. ${report.to ?? '-'}`,
    `  levels: ${levels}${report.unknownLevels > 0 ? ` (${report.unknownLevels} unknown level values read as INFO)` : ''}`,
    `  fields: ${fields}`,
  ].join('\n');
}

async function main(): Promise<number> {
  const dir = process.argv[2];
  if (!dir || process.argv.length > 3) {
    process.stderr.write('usage: npm run logs-check -- <dir>\n');
    return 2;
  }
  const directory = resolve(dir);
  try {
    if (!statSync(directory).isDirectory()) throw new Error('not a directory');
  } catch {
    process.stderr.write(`logs-check: ${directory} is not a readable directory\n`);
    return 2;
  }
  let env: ToolsEnv;
  let topics: ReturnType<typeof parseTopicGlobs>;
  try {
    env = validateEnv(ToolsEnv);
    topics = parseTopicGlobs(env.LOGS_JSONL_TOPICS);
  } catch (error) {
    process.stderr.write(`logs-check: ${(error as Error).message}\n`);
    return 2;
  }
  const fields = jsonlFieldsOf(env);
  const entries = (await readdir(directory, { withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name)
    .sort();
  let problems = 0;
  for (const name of entries) {
    const topic =
      (Object.entries(topics) as [keyof typeof topics, string[]][]).find(([, globs]) =>
        globs.some((glob) => globToRegExp(glob).test(name)),
      )?.[0] ?? null;
    const report = await inspectLogFile(join(directory, name), fields, topic);
    process.stdout.write(`${describe(report)}\n`);
    if (topic !== null && logFileWarning(report)) problems += 1;
  }
  for (const [topic, globs] of Object.entries(topics)) {
    if (!entries.some((name) => globs.some((glob) => globToRegExp(glob).test(name)))) {
      process.stdout.write(`topic ${topic}: no file matches ${globs.join('|')}\n`);
    }
  }
  if (entries.length === 0) process.stdout.write(`${directory} holds no files\n`);
  return problems > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`logs-check failed: ${(error as Error).message}\n`);
    process.exit(2);
  },
);
