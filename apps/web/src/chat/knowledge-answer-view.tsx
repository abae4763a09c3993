import type { KnowledgeAnswer } from '@app/contracts';

/** An answer from the knowledge base, with only the documents it was given as references. */
export function KnowledgeAnswerView({ answer }: { answer: KnowledgeAnswer }) {
  return (
    <article class="answer" aria-label="Knowledge answer">
      <p class="answer-text">{answer.answer}</p>
      {answer.references.length > 0 && (
        <>
          <h3>References</h3>
          <ol class="references">
            {answer.references.map((reference) => (
              <li key={reference.document_id} class="reference">
                <p class="reference-head">
                  {reference.title}
                  {reference.breadcrumb && <span class="breadcrumb"> · {reference.breadcrumb}</span>}
                </p>
                <blockquote>{reference.excerpt}</blockquote>
              </li>
            ))}
          </ol>
        </>
      )}
      {answer.limitations && <p class="hint">{answer.limitations}</p>}
    </article>
  );
}
