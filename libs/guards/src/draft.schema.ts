import { z } from 'zod';
import { ANALYSIS_KINDS } from '@app/contracts';
import { parseJsonAnswer } from '@app/harness';

const id = z.string().trim().min(1).max(64);
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

export type DraftParse = { ok: true; draft: Draft } | { ok: false; violations: string[] };

export function parseDraft(answer: string): DraftParse {
  const value = parseJsonAnswer(answer);
  if (value === undefined) return { ok: false, violations: ['the final answer is not a JSON object'] };
  const parsed = draftSchema.safeParse(value);
  if (!parsed.success) {
    return {
      ok: false,
      violations: parsed.error.issues.map(
        (issue) => `schema: ${issue.path.join('.') || '(root)'}: ${issue.message}`,
      ),
    };
  }
  return { ok: true, draft: parsed.data };
}
