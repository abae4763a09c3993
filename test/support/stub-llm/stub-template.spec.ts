import { fillTemplate, textAt, valueAt } from './stub-template';

const message = JSON.stringify({
  query: 'what does ERR_TIMEOUT mean',
  last_user_query: 'order-123 payment timeout runbook',
  evidence: [
    { document_id: 'doc-a', title: 'Payment "timeout" runbook' },
    { document_id: 'doc-b', title: 'Error codes' },
  ],
});

describe('stub LLM reply templates', () => {
  it.each([
    ['query', 'what does ERR_TIMEOUT mean'],
    ['evidence[].document_id', ['doc-a', 'doc-b']],
    ['evidence.1.title', 'Error codes'],
    ['evidence.5.title', undefined],
    ['missing[].x', []],
  ])('valueAt(%s)', (path, expected) => {
    expect(valueAt(JSON.parse(message), path)).toEqual(expected);
  });

  it('reads one field for match_path and treats a non-JSON message as empty', () => {
    expect(textAt(message, 'query')).toBe('what does ERR_TIMEOUT mean');
    expect(textAt(message, 'evidence[].document_id')).toBe('doc-a; doc-b');
    expect(textAt('plain text', 'query')).toBe('');
  });

  it('fills JSON values and escaped text so the result is valid JSON citing what was sent', () => {
    const filled = fillTemplate(
      '{"answer": "Found: {{ evidence[].title|text }}", "references": {{evidence[].document_id}}}',
      message,
    );
    expect(JSON.parse(filled)).toEqual({
      answer: 'Found: Payment "timeout" runbook; Error codes',
      references: ['doc-a', 'doc-b'],
    });
  });

  it('fills an empty list when nothing was retrieved and null for a missing value', () => {
    expect(fillTemplate('{{evidence[].document_id}} {{nothing}}', '{"evidence":[]}')).toBe('[] null');
  });
});
