import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkDraftRelease, findReleaseViolations } from '@app/guards';
import type { VerifiedSnapshot } from '@app/guards';
import { reportBench } from './support/bench-results';

/**
 * The deterministic release checks (docs/release-gate.md) run on every released text: their cost per
 * report (a realistic draft citing logs, rows and a runbook), per knowledge answer (checked against its
 * cited documents, titles and headings), per SYSTEM_CHAT reply, and per text of the release-check corpus.
 */
const corpus = JSON.parse(
  readFileSync(join(process.cwd(), 'test', 'fixtures', 'release-corpus.json'), 'utf8'),
) as { refused: Record<string, string[]>; released: string[] };
const texts = [...Object.values(corpus.refused).flat(), ...corpus.released];
const ROUNDS = Number(process.env.BENCH_RELEASE_ROUNDS ?? 2000);

const prose = corpus.released.join(' ');
const draft = {
  conclusion: { text: `HikariPool exhausted. ${corpus.released[0]}`, based_on_analysis_ids: ['a1'] },
  analysis: Array.from({ length: 6 }, (_, i) => ({
    analysis_id: `a${i + 1}`,
    kind: 'NORMAL' as const,
    text: corpus.released[i % corpus.released.length],
    tool_call_ids: ['call_logs', 'call_rows', 'call_kb'],
  })),
  action_plan: [
    {
      action: 'kubectl rollout restart deploy/order-service',
      based_on_analysis_ids: ['a1'],
      requires_human_confirmation: false,
    },
    {
      action: 'Check the slow query log between 04:00 and 04:30',
      based_on_analysis_ids: ['a1'],
      requires_human_confirmation: false,
    },
  ],
  recommendations: [
    { text: 'Alert on pool waiting threads above 10 for 5 minutes', based_on_analysis_ids: ['a1'] },
  ],
  limitations: { scope: 'order-service, 30 minutes', missing_info: ['no database metrics'] },
};
const snapshot: VerifiedSnapshot = {
  byAnalysis: [],
  cited: new Map([
    [
      'call_logs',
      {
        source_type: 'LOG',
        source: 'APPLICATION (MOCK)',
        demo: true,
        scope: 'query: pool',
        evidence_status: 'EVIDENCE_FOUND',
        values: { patterns: [{ template: prose, count: 84 }], events: [] },
        truncated: false,
        tool_name: 'query_logs',
      },
    ],
    [
      'call_rows',
      {
        source_type: 'MYSQL',
        source: 'order_db',
        demo: false,
        scope: 'SELECT order_id FROM biz_order params=[]',
        evidence_status: 'EVIDENCE_FOUND',
        values: { columns: ['order_id'], rows: Array.from({ length: 50 }, (_, i) => [`order-${i}`]) },
        truncated: false,
        tool_name: 'query_mysql',
      },
    ],
    [
      'call_kb',
      {
        source_type: 'KNOWLEDGE',
        source: 'knowledge base',
        demo: false,
        scope: 'query: pool',
        evidence_status: 'EVIDENCE_FOUND',
        values: [
          {
            document_id: 'doc-1',
            title: 'Pool runbook',
            excerpt: `${prose} kubectl rollout restart deploy/order-service`.repeat(3),
          },
        ],
        truncated: false,
        tool_name: 'lookup_knowledge',
      },
    ],
  ]),
};
const reportChars = JSON.stringify(draft).length;

const timed = (work: () => unknown, rounds: number): number => {
  for (let i = 0; i < Math.min(rounds, 200); i += 1) work();
  const start = performance.now();
  for (let i = 0; i < rounds; i += 1) work();
  return (performance.now() - start) / rounds;
};
const released = checkDraftRelease(draft, snapshot).ok;
const perReportMs = timed(() => checkDraftRelease(draft, snapshot), ROUNDS);
const documents = [
  'Pool runbook',
  'Runbooks > Database > HikariCP',
  `${prose} kubectl rollout restart deploy/order-service`,
];
const answer = [
  `${corpus.released.slice(0, 6).join(' ')} Restart with kubectl rollout restart deploy/order-service.`,
  'Only the internal knowledge base was searched.',
];
const perKnowledgeMs = timed(() => findReleaseViolations(answer, { documents }), ROUNDS);
const perSystemMs = timed(
  () => findReleaseViolations([corpus.released.slice(0, 4).join(' ')], { documents: [] }),
  ROUNDS,
);
const perTextMs =
  timed(() => texts.forEach((text) => findReleaseViolations([text], { documents: [] })), ROUNDS / 20) /
  texts.length;

reportBench('release_checks_cost', {
  report_chars: reportChars,
  report_released: String(released),
  mean_ms_per_report: perReportMs,
  reports_per_second: 1000 / perReportMs,
  mean_ms_per_knowledge_answer: perKnowledgeMs,
  mean_ms_per_system_answer: perSystemMs,
  corpus_texts: texts.length,
  mean_us_per_corpus_text: perTextMs * 1000,
});
