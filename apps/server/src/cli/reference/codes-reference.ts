import {
  CONTENT_TYPES,
  DONE_OUTCOMES,
  FAILURE_CODES,
  FAILURE_LABELS,
  FALLBACK_LABELS,
  FALLBACK_TYPES,
  STATUS_CODES,
  STATUS_LABELS,
} from '@app/contracts';
import { FAILURE_MESSAGES, FALLBACK_CAUSE_TEXT, FIXED_REASON_CAUSE, FallbackCause } from '@app/chat';
import { FALLBACK_TEXT } from '@app/guards';

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function table(header: string[], rows: string[][]): string[] {
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`),
  ];
}

/**
 * docs/codes.md: the chat stream's closed code sets (libs/contracts) with the labels the web UI shows and
 * the texts the server sends, each read from the table the code uses.
 */
export function renderCodesReference(): string {
  const causes = Object.keys(FALLBACK_CAUSE_TEXT) as FallbackCause[];
  return [
    '# Stream codes, failures and fallbacks',
    '',
    '<!-- Generated from libs/contracts and the texts the server sends by `npm run docs:generate`; do not edit. -->',
    '',
    'The closed code sets of `POST /api/chat` ([api-and-sse.md](api-and-sse.md)): the wire contract is',
    '`libs/contracts`; the labels are what the web UI shows; the texts are what the server sends.',
    '',
    '## Contents',
    '',
    '- [Events and outcomes](#events-and-outcomes)',
    '- [Status codes](#status-codes)',
    '- [Failure codes](#failure-codes)',
    '- [Fallback types](#fallback-types)',
    '- [Diagnosis fallback reasons](#diagnosis-fallback-reasons)',
    '- [Fallback causes](#fallback-causes)',
    '',
    '## Events and outcomes',
    '',
    `Content types: ${CONTENT_TYPES.map((code) => `\`${code}\``).join(', ')}.`,
    `\`done\` outcomes: ${DONE_OUTCOMES.map((code) => `\`${code}\``).join(', ')}.`,
    '',
    '## Status codes',
    '',
    ...table(
      ['code', 'web UI label'],
      STATUS_CODES.map((code) => [`\`${code}\``, STATUS_LABELS[code]]),
    ),
    '',
    '## Failure codes',
    '',
    'A `failure` event carries one of these codes and its fixed message; `done` then says `FAILED`.',
    '',
    ...table(
      ['code', 'web UI label', 'message'],
      FAILURE_CODES.map((code) => [`\`${code}\``, FAILURE_LABELS[code], FAILURE_MESSAGES[code]]),
    ),
    '',
    '## Fallback types',
    '',
    'A `FALLBACK` content is built from a template, never by a model and never with draft text. A diagnosis',
    "fallback's message, limitation and next steps then come from its cause (below).",
    '',
    ...table(
      ['type', 'web UI label', 'message', 'limitation'],
      FALLBACK_TYPES.map((type) => [
        `\`${type}\``,
        FALLBACK_LABELS[type],
        FALLBACK_TEXT[type].message,
        FALLBACK_TEXT[type].limitation,
      ]),
    ),
    '',
    '## Diagnosis fallback reasons',
    '',
    "The run's `fallback_reason` (trace API) and the cause whose text the user gets. `REPAIR_<code>` and",
    '`SEMANTIC_<code>` name the failure of the evidence repair or SemanticGuard model call: a deadline or a',
    'cancellation is `TIME_LIMIT`, a budget code `BUDGET`, `NO_EVIDENCE` and `BUSINESS_REJECTION`',
    '`EVIDENCE_INSUFFICIENT`, any other `MODEL_UNAVAILABLE`. A cause that says the evidence was not enough',
    "becomes `DATA_SOURCE_UNAVAILABLE` (or `EVIDENCE_STORE_OUTAGE`) when one of the run's tool calls ended",
    'in `DATASOURCE_UNAVAILABLE` (or `EVIDENCE_STORE_UNAVAILABLE`).',
    '',
    ...table(
      ['reason', 'cause'],
      Object.entries(FIXED_REASON_CAUSE).map(([reason, cause]) => [`\`${reason}\``, `\`${cause}\``]),
    ),
    '',
    '## Fallback causes',
    '',
    ...table(
      ['cause', 'message', 'limitation', 'next steps'],
      causes.map((cause) => [
        `\`${cause}\``,
        FALLBACK_CAUSE_TEXT[cause].message,
        FALLBACK_CAUSE_TEXT[cause].limitation,
        FALLBACK_CAUSE_TEXT[cause].next_steps.join(' — '),
      ]),
    ),
    '',
  ].join('\n');
}
