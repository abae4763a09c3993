import { cutText, type DiagnosisRun } from '@app/trace';

export interface PreviousTurn {
  user_query: string;
  published_conclusion: string | null;
  scope: string;
  limitations: string[];
  source_documents: { document_id: string; title: string }[];
}

/**
 * Built by code from the session's immediately previous completed turn, and only when that
 * turn was safely published — a DIAGNOSIS released as SUCCESS with a published result. A previous
 * turn that was a knowledge answer, a fallback, a failure or a cancellation gives null (an older
 * published diagnosis behind it is not used). Cut to the configured limits.
 */
export function previousTurnOf(
  previous: Pick<DiagnosisRun, 'intent' | 'releaseOutcome' | 'publishedResult'> | null,
  limits: { maxFieldChars: number; maxSourceDocuments: number },
): PreviousTurn | null {
  if (!previous || previous.intent !== 'DIAGNOSIS' || previous.releaseOutcome !== 'SUCCESS') return null;
  const published = previous.publishedResult;
  if (!published) return null;
  const cut = (text: string) => cutText(text, limits.maxFieldChars);
  return {
    user_query: cut(published.user_query),
    published_conclusion:
      published.published_conclusion === null ? null : cut(published.published_conclusion),
    scope: cut(published.scope),
    limitations: published.limitations.map(cut),
    source_documents: published.source_documents
      .slice(0, limits.maxSourceDocuments)
      .map((doc) => ({ document_id: doc.document_id, title: cut(doc.title) })),
  };
}
