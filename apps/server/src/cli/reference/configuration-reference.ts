import { describeEnvClass, envSections, EnvKeyReference } from '@app/config';

/** The lib graph from the top, then the composition root: the order the reference lists sections in. */
const LIB_ORDER = ['server', 'chat', 'guards', 'tools', 'harness', 'trace', 'auth'];

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function defaultText(row: EnvKeyReference): string {
  if (row.defaultValue === undefined) return '(unset)';
  if (row.defaultValue === '') return '(empty)';
  return `\`${cell(String(row.defaultValue))}\``;
}

export function anchor(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');
}

/** A section's heading in docs/configuration-reference.md. */
export function sectionHeading(lib: string, title: string): string {
  return `${title} (${lib === 'server' ? 'apps/server' : `libs/${lib}`})`;
}

/**
 * docs/configuration-reference.md: every environment key the service validates, read from the
 * `@EnvSection` classes themselves (class-validator metadata and the classes' initialisers).
 */
export function renderConfigurationReference(): string {
  const sections = envSections()
    .map((entry, index) => ({ ...entry, index }))
    .sort((a, b) => {
      const rank = (lib: string) => (LIB_ORDER.includes(lib) ? LIB_ORDER.indexOf(lib) : LIB_ORDER.length);
      return rank(a.section.lib) - rank(b.section.lib) || a.index - b.index;
    });
  const lines = [
    '# Configuration reference',
    '',
    '<!-- Generated from the @EnvSection classes (libs/config) by `npm run docs:generate`; do not edit. -->',
    '',
    'Every environment key the service reads, with its type, its default and the rules start-up checks it',
    'against (the rule texts are the messages a bad value gets; the value itself is never echoed). A bad',
    'value stops the service naming the key. Secrets come only from the environment; `.env` in the working',
    'directory is read too. What the keys do, and the rules between keys, is in',
    '[configuration.md](configuration.md).',
    '',
    '## Contents',
    '',
    ...sections.map(({ section }) => {
      const title = sectionHeading(section.lib, section.title);
      return `- [${title}](#${anchor(title)})`;
    }),
  ];
  for (const { envClass, section } of sections) {
    lines.push('', `## ${sectionHeading(section.lib, section.title)}`, '');
    lines.push(`Validated by \`${envClass.name}\`.`, '');
    lines.push('| key | type | default | rules |', '| --- | --- | --- | --- |');
    for (const row of describeEnvClass(envClass)) {
      const rules = [...(row.optional ? ['optional'] : []), ...row.rules].map(cell).join('; ');
      lines.push(`| \`${row.key}\` | ${row.type} | ${defaultText(row)} | ${rules} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}
