import { z } from 'zod';
import type { KnowledgeAnswer, RetrievedDocument } from '@app/contracts';
import { parseJsonAnswer } from '@app/harness';

const answerSchema = z.object({
  answer: z.string().min(1).max(8000),
  references: z.array(z.string()).max(20),
  limitations: z.string().max(2000).default(''),
});

export type { KnowledgeAnswer, RetrievedDocument };

/** The checked answer; `found` decides the review and the journal, and is not part of the wire payload. */
export interface CheckedKnowledgeAnswer extends KnowledgeAnswer {
  found: boolean;
}

export const NOT_FOUND_ANSWER =
  '知识库中没有找到可以回答该问题的内容 / Nothing in the knowledge base answers this question.';

/** The fixed answer when the lookup found nothing, or the answer cites none of what it found. */
export function notFoundKnowledgeAnswer(): CheckedKnowledgeAnswer {
  return {
    answer: NOT_FOUND_ANSWER,
    references: [],
    limitations: '仅检索了内部知识库 / Only the internal knowledge base was searched.',
    found: false,
  };
}

/**
 * Keeps only references to documents that were really retrieved for this question; an answer that cites
 * none of them becomes the fixed "not found" answer. A reply that is not the expected JSON is null: a
 * technical failure of the answer model, never a "not found" (docs/architecture.md "Knowledge answers").
 */
export function checkKnowledgeAnswer(
  modelText: string,
  retrieved: RetrievedDocument[],
): CheckedKnowledgeAnswer | null {
  const result = answerSchema.safeParse(parseJsonAnswer(modelText));
  if (!result.success) return null;
  const parsed = result.data;
  const cited = new Set(parsed.references);
  const references = retrieved.filter(
    (doc, index) =>
      cited.has(doc.document_id) && retrieved.findIndex((d) => d.document_id === doc.document_id) === index,
  );
  if (references.length === 0) return notFoundKnowledgeAnswer();
  return { answer: parsed.answer, references, limitations: parsed.limitations, found: true };
}
