import { envSections } from '@app/config';
import { EVIDENCE_TOOLS, KNOWLEDGE_BACKENDS, LOG_BACKENDS } from '@app/tools';
import { anchor, sectionHeading } from './configuration-reference';

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** A link to the configuration-reference section of the class that validates a backend's own keys. */
function keysOf(envClass: (new () => object) | null): string {
  if (envClass === null) return 'none';
  const entry = envSections().find((candidate) => candidate.envClass === envClass);
  if (!entry) return `\`${envClass.name}\``;
  const heading = sectionHeading(entry.section.lib, entry.section.title);
  return `[${entry.section.title}](configuration-reference.md#${anchor(heading)})`;
}

/**
 * docs/backends.md: every log backend, knowledge backend and built-in evidence tool, read from their
 * registries (libs/tools), each with its own docs fragment and the section of its keys.
 */
export function renderBackendsReference(): string {
  const lines = [
    '# Backends and evidence tools',
    '',
    '<!-- Generated from the registries of libs/tools by `npm run docs:generate`; do not edit. -->',
    '',
    'Each backend is one folder owning its keys, its factory and its `npm run doctor` check, listed in its',
    "port's registry; the selector's allowed values are the registry's kinds. Adding one is its folder and",
    'one registry line ([contributing.md](contributing.md#backends)).',
    '',
    '## Log backends (`LOG_BACKEND`)',
    '',
    'Registry: `libs/tools/src/logs/log-backends.ts`; folders under `libs/tools/src/logs/backends/`.',
    '',
    '| `LOG_BACKEND` | reads | results | own keys |',
    '| --- | --- | --- | --- |',
    ...LOG_BACKENDS.map((backend) => {
      const results = backend.results
        ? `\`source_kind: "${backend.results.sourceKind}"\`${backend.results.realData ? '' : ', marked demo data'}`
        : 'no `query_logs`';
      return `| \`${backend.kind}\` | ${cell(backend.summary)} | ${results} | ${keysOf(backend.envClass)} |`;
    }),
    '',
    '## Knowledge backends (`KNOWLEDGE_BACKEND`)',
    '',
    'Registry: `libs/tools/src/knowledge/knowledge-backends.ts`; folders under `libs/tools/src/knowledge/backends/`.',
    '',
    '| `KNOWLEDGE_BACKEND` | reads | own keys |',
    '| --- | --- | --- |',
    ...KNOWLEDGE_BACKENDS.map(
      (backend) => `| \`${backend.kind}\` | ${cell(backend.summary)} | ${keysOf(backend.envClass)} |`,
    ),
    '',
    '## Built-in evidence tools',
    '',
    "Registry: `EVIDENCE_TOOLS` in `libs/tools/src/evidence-tools.ts`; each tool's folder owns its config",
    'slice, failure codes ([codes.md](codes.md)) and factory. MCP tools and `query_metrics` are registered by',
    'their own modules ([sources.md](sources.md)).',
    '',
    '| tool | what it does |',
    '| --- | --- |',
    ...EVIDENCE_TOOLS.map((tool) => `| \`${tool.name}\` | ${cell(tool.summary)} |`),
  ];
  return `${lines.join('\n')}\n`;
}
