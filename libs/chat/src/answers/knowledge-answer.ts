import { z } from 'zod';
import { parseJsonAnswer } from '@app/harness';

const answerSchema = z.object({
  answer: z.string().min(1).max(8000),
  references: z.array(z.string()).max(20),
  limitations: z.string().max(2000).default(''),
});

export interface RetrievedDocument {
  document_id: string;
  title: string;
  source: string;
  breadcrumb: string;
  excerpt: string;
}

export interface KnowledgeAnswer {
  answer: string;
  references: RetrievedDocument[];
  limitations: string;
  found: boolean;
}

export const NOT_FOUND_ANSWER =
  '知识库中没有找到可以回答该问题的内容 / Nothing in the knowledge base answers this question.';

export const UNVERIFIED_ANSWER =
  '知识库的回答未通过校验，因此不予展示 / An answer from the knowledge base could not be verified, so it is not shown.';

/** The fixed answer when a drafted answer is refused by the release checks or the isolated review. */
export function unverifiedKnowledgeAnswer(): KnowledgeAnswer {
  return {
    answer: UNVERIFIED_ANSWER,
    references: [],
    limitations:
      '回答未通过与引用文档的一致性校验 / The answer did not pass the check against its cited documents.',
    found: false,
  };
}

/**
 * Keeps only references to documents that were really retrieved for this question; an answer that cites
 * none of them (or cannot be read) becomes the fixed "not found" answer.
 */
export function checkKnowledgeAnswer(modelText: string, retrieved: RetrievedDocument[]): KnowledgeAnswer {
  const result = answerSchema.safeParse(parseJsonAnswer(modelText));
  const parsed = result.success ? result.data : null;
  const cited = new Set(parsed?.references ?? []);
  const references = retrieved.filter(
    (doc, index) =>
      cited.has(doc.document_id) && retrieved.findIndex((d) => d.document_id === doc.document_id) === index,
  );
  if (!parsed || references.length === 0) {
    return {
      answer: NOT_FOUND_ANSWER,
      references: [],
      limitations: '仅检索了内部知识库 / Only the internal knowledge base was searched.',
      found: false,
    };
  }
  return { answer: parsed.answer, references, limitations: parsed.limitations, found: true };
}
