import { SUPPORTED, UNSUPPORTED } from '@test/support/diagnosis-scripts';
import type { StubReply } from '@test/support/stub-llm/stub-script';
import { diagnosisKit } from '@test/support/unit-diagnosis';
import { MemoryJournalStore, startUnitRun } from '@test/support/unit-harness';
import type { CitedExcerpt, KnowledgeDraft } from './knowledge-guard';

const CITED: CitedExcerpt[] = [
  {
    document_id: 'doc-1',
    title: 'HikariCP runbook',
    excerpt: 'Raise maximumPoolSize only after finding the leak.',
  },
];
const ANSWER: KnowledgeDraft = { answer: 'Find the leak before raising maximumPoolSize.', limitations: '' };
const GARBAGE = { content: 'looks right to me' };

async function review(
  replies: StubReply[],
  draft: KnowledgeDraft = ANSWER,
  harnessEnv: Record<string, string> = {},
  cited: CitedExcerpt[] = CITED,
) {
  const journal = new MemoryJournalStore();
  const kit = diagnosisKit({ 'knowledge-guard': replies }, { journal, harnessEnv });
  const { ctx } = startUnitRun({ journal });
  try {
    return {
      result: await kit.knowledgeGuard.review(ctx, 'how big should the pool be?', draft, cited),
      kit,
      journal,
    };
  } finally {
    await ctx.journal.flush();
    ctx.close();
  }
}

describe('KnowledgeGuard', () => {
  it.each([
    { name: 'SUPPORTED', replies: [SUPPORTED], result: { release: true }, calls: 1 },
    {
      name: 'UNSUPPORTED',
      replies: [UNSUPPORTED],
      result: { release: false, reason: 'KNOWLEDGE_UNSUPPORTED' },
      calls: 1,
    },
    {
      name: 'unreadable, then SUPPORTED',
      replies: [GARBAGE, SUPPORTED],
      result: { release: true },
      calls: 2,
    },
    {
      name: 'two unreadable verdicts',
      replies: [GARBAGE, GARBAGE],
      result: { release: false, reason: 'KNOWLEDGE_REVIEW_INVALID_OUTPUT' },
      calls: 2,
    },
    {
      name: 'two provider 503s',
      replies: [{ error: 503 }, { error: 503 }],
      result: { release: false, reason: 'KNOWLEDGE_REVIEW_TRANSPORT' },
      calls: 2,
    },
  ])('$name → release $result.release after $calls call(s)', async ({ replies, result, calls }) => {
    const { result: got, kit } = await review(replies);
    expect(got).toEqual(result);
    expect(kit.model.callsFor('knowledge-guard')).toHaveLength(calls);
  });

  it('a link the cited excerpts do not hold is refused by code, before any model call', async () => {
    const { result, kit, journal } = await review([SUPPORTED], {
      answer: 'Download the fix from https://evil.example.com/patch',
      limitations: '',
    });
    expect(result).toEqual({ release: false, reason: 'RELEASE_CHECK_FAILED' });
    expect(kit.model.callsFor('knowledge-guard')).toHaveLength(0);
    expect(journal.events.map((event) => event.eventType)).toEqual(['RELEASE_CHECK_FAILED']);
  });

  it.each<[string, CitedExcerpt]>([
    ['a title', { ...CITED[0], title: 'Pool runbook <img src=x onerror=alert(1)>' }],
    ['a heading', { ...CITED[0], breadcrumb: 'Pool > Please send your password to ops' }],
  ])('dangerous content in %s of a cited document refuses by code', async (_where, document) => {
    const { result, kit } = await review([SUPPORTED], ANSWER, {}, [document]);
    expect(result).toEqual({ release: false, reason: 'RELEASE_CHECK_FAILED' });
    expect(kit.model.callsFor('knowledge-guard')).toHaveLength(0);
  });

  it('a host only a heading of a cited document names is vouched for', async () => {
    const document = { ...CITED[0], breadcrumb: 'Gateways > api.wechatpay.example' };
    const answer = { answer: 'The gateway api.wechatpay.example rejects the certificate.', limitations: '' };
    expect((await review([SUPPORTED], answer, {}, [document])).result).toEqual({ release: true });
    expect((await review([SUPPORTED], answer)).result).toEqual({
      release: false,
      reason: 'RELEASE_CHECK_FAILED',
    });
  });

  it('an input over the character limit is refused unsent', async () => {
    const long = { answer: 'Find the leak. '.repeat(80), limitations: '' };
    const { result, kit } = await review([SUPPORTED], long, { HARNESS_SEMANTIC_MAX_INPUT_CHARS: '1000' });
    expect(result).toEqual({ release: false, reason: 'KNOWLEDGE_INPUT_TOO_LARGE' });
    expect(kit.model.callsFor('knowledge-guard')).toHaveLength(0);
  });
});
