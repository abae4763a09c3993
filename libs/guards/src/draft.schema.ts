import { z } from 'zod';
import { ANALYSIS_KINDS } from '@app/contracts';
import { parseJsonAnswer } from '@app/harness';

/**
 * An analysis id is a label (`a1`, `analysis-2`), shown beside the text it names and quoted in
 * limitations: letters, digits, `-` and `_` only, so it can carry no link, address, command or sentence.
 */
const id = z
  .string()
  .trim()
  .regex(/^[\p{L}\p{N}][\p{L}\p{N}_-]{0,63}$/u, 'must be a short label: letters, digits, - or _');
const text = z.string().trim().min(1).max(4000);

/** The Diagnosis Agent's final answer, checked in code. */
export const draftSchema = z.strictObject({
  conclusion: z.strictObject({ text, based_on_analysis_ids: z.array(id) }).nullable(),
  analysis: z
    .array(
      z.strictObject({
        analysis_id: id,
        kind: z.enum(ANALYSIS_KINDS),
        text,
        tool_call_ids: z.array(z.string().max(128)),
      }),
    )
    .max(50),
  action_plan: z
    .array(
      z.strictObject({
        action: text,
        based_on_analysis_ids: z.array(id),
        requires_human_confirmation: z.boolean(),
      }),
    )
    .max(20),
  recommendations: z.array(z.strictObject({ text, based_on_analysis_ids: z.array(id) })).max(20),
  limitations: z.strictObject({
    scope: z.string().trim().max(1000),
    missing_info: z.array(z.string().trim().max(1000)).max(20),
  }),
});
export type Draft = z.infer<typeof draftSchema>;

/** `unreadable`: the answer could not be read as a draft at all (not JSON, or not the draft's shape). */
export type DraftParse = { ok: true; draft: Draft } | { ok: false; violations: string[]; unreadable: true };

/** The repair's instruction for an answer that is not JSON at all (Markdown, prose). */
export const NOT_JSON_VIOLATION =
  'the final answer is not a JSON object: convert it into the JSON draft shape, copying every text exactly as written';

const snakeCase = (key: string) => key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/**
 * The value with camelCase keys in snake_case (`actionPlan` → `action_plan`), as some models write the
 * schema's keys; a key is renamed only where its snake_case form is not also present.
 */
export function withSnakeCaseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withSnakeCaseKeys);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value as Record<string, unknown>);
  const keys = new Set(entries.map(([key]) => key));
  return Object.fromEntries(
    entries.map(([key, item]) => {
      const snake = snakeCase(key);
      return [snake !== key && keys.has(snake) ? key : snake, withSnakeCaseKeys(item)];
    }),
  );
}

export function parseDraft(answer: string): DraftParse {
  const value = parseJsonAnswer(answer);
  if (value === undefined) return { ok: false, violations: [NOT_JSON_VIOLATION], unreadable: true };
  const parsed = draftSchema.safeParse(withSnakeCaseKeys(value));
  if (!parsed.success) {
    return {
      ok: false,
      violations: parsed.error.issues.map(
        (issue) => `schema: ${issue.path.join('.') || '(root)'}: ${issue.message}`,
      ),
      unreadable: true,
    };
  }
  return { ok: true, draft: parsed.data };
}
