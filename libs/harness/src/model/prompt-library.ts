import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SystemMessage } from '@langchain/core/messages';
import { MODEL_ROLES, ModelRole } from '@app/contracts';

/** The roles a prompt exists for: the wire contract's model roles, one `prompts/<role>.md` each. */
export const PROMPT_ROLES = MODEL_ROLES;
export type PromptRole = ModelRole;

/**
 * The system prompt of each LLM role, read once from `prompts/<role>.md`. Each file must start with
 * `<!-- role: NAME -->` (the stub LLM server routes on it), so a misplaced file fails at start-up.
 */
export class PromptLibrary {
  private readonly prompts: ReadonlyMap<PromptRole, string>;

  constructor(directory: string) {
    this.prompts = new Map(
      PROMPT_ROLES.map((role) => {
        const text = readFileSync(join(directory, `${role}.md`), 'utf8');
        if (!text.startsWith(`<!-- role: ${role} -->`)) {
          throw new Error(`prompt ${role}.md must start with "<!-- role: ${role} -->"`);
        }
        return [role, text];
      }),
    );
  }

  /** Rendered prompts by role and offered tools: a run's calls repeat the same few combinations. */
  private readonly rendered = new Map<string, string>();

  /** The role's prompt; a line tagged `<!-- tool: NAME -->` stays (untagged) only when NAME is among `toolNames`. */
  text(role: PromptRole, toolNames: readonly string[] = []): string {
    const key = `${role}\n${toolNames.join('\n')}`;
    let text = this.rendered.get(key);
    if (text === undefined) {
      text = renderToolLines(this.prompts.get(role)!, toolNames);
      this.rendered.set(key, text);
    }
    return text;
  }

  systemMessage(role: PromptRole, toolNames: readonly string[] = []): SystemMessage {
    return new SystemMessage(this.text(role, toolNames));
  }
}

const TOOL_LINE = /\s*<!--\s*tool:\s*([a-z0-9_]+)\s*-->/;

/** Drops the lines about tools this call does not offer, so a prompt never names a tool that is switched off. */
export function renderToolLines(text: string, toolNames: readonly string[]): string {
  return text
    .split('\n')
    .flatMap((line) => {
      const tag = TOOL_LINE.exec(line);
      if (!tag) return [line];
      return toolNames.includes(tag[1]) ? [line.replace(TOOL_LINE, '')] : [];
    })
    .join('\n');
}
