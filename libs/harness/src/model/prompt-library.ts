import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SystemMessage } from '@langchain/core/messages';

export const PROMPT_ROLES = [
  'intent-router',
  'system-chat',
  'knowledge-answer',
  'knowledge-guard',
  'diagnosis-agent',
  'evidence-repair',
  'semantic-guard',
] as const;
export type PromptRole = (typeof PROMPT_ROLES)[number];

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

  text(role: PromptRole): string {
    return this.prompts.get(role)!;
  }

  systemMessage(role: PromptRole): SystemMessage {
    return new SystemMessage(this.text(role));
  }
}
