import type { PublishedResult } from '@app/trace';

export interface PreviousTurn {
  user_query: string;
  published_conclusion: string | null;
  scope: string;
  limitations: string[];
  source_documents: { document_id: string; title: string }[];
}

/** Seed §4.6: built by code from a released run's published result, cut to the configured limits. */
export function previousTurnOf(
  published: PublishedResult | null,
  limits: { maxFieldChars: number; maxSourceDocuments: number },
): PreviousTurn | null {
  if (!published) return null;
  const cut = (text: string) => text.slice(0, limits.maxFieldChars);
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
