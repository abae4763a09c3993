import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startApp, useStubbedApp } from '../support/app-under-test';
import { accessibilityViolations, fitsWidth, launchBrowser, screenshot } from '../support/browser';
import { agentTurns, draftJson, SUPPORTED, UNSUPPORTED } from '../support/diagnosis-scripts';
import { alertmanagerBody, postAlert, waitForRunEnd } from '../support/alerts';
import { postChat } from '../support/sse-client';
import type { StubReply } from '../support/stub-llm/stub-script';
import { createConnection } from 'mysql2/promise';
import { TEST_KEYS, TEST_MYSQL } from '../support/test-env';
import { scaled } from '../support/test-timeouts';

jest.setTimeout(60_000);

// Declared before the app's hooks: Jest runs afterAll hooks in declaration order, and the app's
// close waits for the pages' open connections, so the browser goes first.
beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await Promise.all(contexts.map((context) => context.close()));
  await browser?.close();
});

const suite = useStubbedApp();
const { stub } = suite;

const RUNBOOK = [
  '# Web UI payment runbook',
  '',
  '## Symptoms',
  'RUNBOOK-EXCERPT HikariPool connection is not available; payment calls fail with ERR_TIMEOUT after 30000 ms.',
  '',
  '## Handling',
  'Stop the long transaction that holds the HikariPool connections, then consider a larger pool.',
].join('\n');

const DRAFT = JSON.stringify({
  conclusion: {
    text: 'UI-CONCLUSION HikariCP pool exhaustion in order-service causes the payment timeouts',
    based_on_analysis_ids: ['a1', 'a2'],
  },
  analysis: [
    {
      analysis_id: 'a1',
      kind: 'NORMAL',
      text: 'order-service logs show repeated HikariPool connection timeouts',
      tool_call_ids: ['call_logs_1'],
    },
    {
      analysis_id: 'a2',
      kind: 'NORMAL',
      text: 'The payment runbook names pool exhaustion as the cause of ERR_TIMEOUT',
      tool_call_ids: ['call_kb_1'],
    },
  ],
  action_plan: [
    {
      action: 'Stop the long transaction holding the pool connections',
      based_on_analysis_ids: ['a1', 'a2'],
      requires_human_confirmation: true,
    },
    {
      action: 'Watch the pool metrics for ten minutes',
      based_on_analysis_ids: ['a1'],
      requires_human_confirmation: false,
    },
  ],
  recommendations: [{ text: 'Alert on pool waiting threads', based_on_analysis_ids: ['a1'] }],
  limitations: { scope: 'order-service, last 30 minutes, MOCK logs', missing_info: ['no slow query log'] },
});

/** The agent looks up the runbook and the logs, then (after a pause the UI shows as progress) drafts. */
function agentReplies(draftDelayMs: number): StubReply[] {
  return [
    {
      content: '1. search the runbook\n2. check order-service logs\n3. conclude',
      reasoning_content: 'UI-REASONING-MARKER the pool looks exhausted',
      tool_calls: [
        {
          id: 'call_kb_1',
          name: 'lookup_knowledge',
          arguments: { query: 'HikariPool ERR_TIMEOUT payment timeout' },
        },
        {
          id: 'call_logs_1',
          name: 'query_logs',
          arguments: {
            topic: 'APPLICATION',
            query: 'order-service HikariPool',
            lookback_minutes: 30,
          },
        },
      ],
    },
    { content: DRAFT, delay_ms: draftDelayMs },
  ];
}

const ROUTE_DIAGNOSIS = { 'intent-router': [{ content: 'DIAGNOSIS' }] };

let browser: Browser;
const contexts: BrowserContext[] = [];
/** Uncaught errors in the UI, and any request leaving the app's origin, fail the test that caused them. */
const pageErrors: string[] = [];
const foreignRequests: string[] = [];

afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
  expect(foreignRequests.splice(0)).toEqual([]);
});

/** A fresh tab (own session storage) on the UI, with the keys entered through the keys dialog. */
async function openUi(keys: { apiKey: string; auditorKey?: string }, hash = ''): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  contexts.push(context);
  // The UI must work offline: nothing may be fetched from anywhere but the app itself.
  await context.route(
    (url) => url.origin !== suite.app.baseUrl,
    (route) => {
      foreignRequests.push(route.request().url());
      return route.abort();
    },
  );
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(`${suite.app.baseUrl}/${hash}`);
  const dialog = page.getByRole('dialog', { name: 'API keys' });
  await dialog.waitFor();
  await dialog.getByLabel('API key', { exact: true }).fill(keys.apiKey);
  if (keys.auditorKey) await dialog.getByLabel('Auditor key (optional)').fill(keys.auditorKey);
  await dialog.getByRole('button', { name: 'Save keys' }).click();
  await dialog.waitFor({ state: 'hidden' });
  return page;
}

async function ask(page: Page, query: string): Promise<void> {
  await page.getByLabel('Your question').fill(query);
  await page.getByRole('button', { name: 'Send' }).click();
}

const lastTurn = (page: Page) => page.locator('li.turn').last();

/** Reads the run id the turn links to, then the run's status from the trace API. */
async function runStatusOf(page: Page): Promise<{ sessionId: string; runId: string; status: string }> {
  const href = await lastTurn(page).getByRole('link', { name: 'View the run trace' }).getAttribute('href');
  const [, sessionId, runId] = /^#\/runs\/([^/]+)\/([^/]+)$/.exec(href ?? '') ?? [];
  const response = await fetch(`${suite.app.baseUrl}/api/diagnosis/${sessionId}/trace?runId=${runId}`, {
    headers: { 'x-api-key': TEST_KEYS.operator },
  });
  const trace = (await response.json()) as { run: { status: string } };
  return { sessionId, runId, status: trace.run.status };
}

describe('web UI served by the app', () => {
  it('serves the built UI at / with a strict content security policy, and leaves other paths to the API', async () => {
    const index = await fetch(`${suite.app.baseUrl}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toContain('text/html');
    expect(index.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const html = await index.text();
    expect(html).toMatch(/<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js">/);
    expect(html).not.toMatch(/https?:\/\//);
    const asset = /src="(\/assets\/[^"]+)"/.exec(html)?.[1];
    const script = await fetch(`${suite.app.baseUrl}${asset}`);
    expect(script.status).toBe(200);
    expect(script.headers.get('cache-control')).toContain('immutable');
    const unknown = await fetch(`${suite.app.baseUrl}/api/no-such-endpoint`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ statusCode: 404 });
  });

  it('refuses to start when WEB_UI_DIR holds no built UI, naming the key', async () => {
    await expect(startApp({ WEB_UI_DIR: 'test/fixtures' })).rejects.toThrow('WEB_UI_DIR has no index.html');
  });
});

// The tests share one app and run in order: the runbook uploaded first is the knowledge the diagnoses cite.
describe('web UI in Chromium', () => {
  it('uploads a runbook, lists it as indexed and deletes another document', async () => {
    const page = await openUi({ apiKey: TEST_KEYS.operator }, '#/documents');
    await page.getByRole('heading', { name: 'Knowledge documents' }).waitFor();
    for (const [title, file] of [
      ['Web UI scratch note', 'scratch.md'],
      ['Web UI payment runbook', 'payment-timeout.md'],
    ]) {
      await page.getByLabel('File (.md, .markdown or .txt)').setInputFiles({
        name: file,
        mimeType: 'text/markdown',
        buffer: Buffer.from(title === 'Web UI scratch note' ? '# Scratch\n\nnothing here' : RUNBOOK),
      });
      await page.getByLabel('Title').fill(title);
      await page.getByLabel('Fault source (optional)').fill('web-ui-payment');
      await page.getByRole('button', { name: 'Upload' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Uploaded “${title}”: INDEXED.` })
        .waitFor();
    }
    const table = page.getByRole('region', { name: 'Documents' });
    await table.getByRole('cell', { name: 'Web UI payment runbook', exact: true }).waitFor();
    await screenshot(page, 'documents');
    expect(await accessibilityViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Delete Web UI scratch note' }).click();
    await page.getByRole('button', { name: 'Confirm delete' }).click();
    await table
      .getByRole('cell', { name: 'Web UI scratch note', exact: true })
      .waitFor({ state: 'detached' });
    expect(await table.getByRole('cell', { name: 'Web UI payment runbook', exact: true }).count()).toBe(1);

    // A document opens in place: the chunks the knowledge base searches, under their headings.
    const open = table.getByRole('button', { name: 'Web UI payment runbook', exact: true });
    await open.click();
    expect(await open.getAttribute('aria-expanded')).toBe('true');
    const chunks = page.getByRole('list', { name: 'Chunks of Web UI payment runbook' });
    await chunks.waitFor();
    const chunkText = await chunks.textContent();
    expect(chunkText).toContain('Web UI payment runbook > Symptoms');
    expect(chunkText).toContain('RUNBOOK-EXCERPT HikariPool connection is not available');
    await screenshot(page, 'document-open');
    expect(await accessibilityViolations(page)).toEqual([]);
    await open.click();
    await chunks.waitFor({ state: 'detached' });

    await page.getByLabel('File (.md, .markdown or .txt)').setInputFiles({
      name: 'tool.exe',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from('MZ'),
    });
    await page.getByLabel('Title').fill('Not a runbook');
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByRole('alert').filter({ hasText: 'only Markdown' }).waitFor();
  });

  it('shows a diagnosis’s live progress, then the report in the fixed section order with references', async () => {
    stub.load({
      roles: {
        ...ROUTE_DIAGNOSIS,
        'diagnosis-agent': agentReplies(1500),
        'semantic-guard': [SUPPORTED],
      },
    });
    const page = await openUi({ apiKey: TEST_KEYS.operator });
    await ask(page, '订单 order-123 支付超时，帮我排查');

    const turn = lastTurn(page);
    const progress = turn.getByRole('list', { name: 'Progress' });
    await progress.locator('li[data-status="TOOL_RUNNING"]').waitFor();
    expect(await turn.getAttribute('aria-busy')).toBe('true');
    await expect(page.getByRole('button', { name: 'Stop' }).isVisible()).resolves.toBe(true);
    await screenshot(page, 'diagnosis-progress');

    const report = turn.getByRole('article', { name: 'Diagnosis report' });
    await report.waitFor({ timeout: scaled(20_000) });
    await screenshot(page, 'diagnosis-report');
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(await fitsWidth(page, 390)).toBe(true);
    expect(await report.locator('h3').allTextContents()).toEqual([
      'Conclusion',
      'Analysis',
      'Action plan',
      'Recommendations',
      'Limitations and scope',
      'References',
    ]);
    expect(await report.textContent()).toContain('UI-CONCLUSION HikariCP pool exhaustion');
    const actions = report.locator('.actions-list li');
    expect(await actions.count()).toBe(2);
    expect(await actions.nth(0).textContent()).toContain('Needs human confirmation');
    expect(await actions.nth(1).textContent()).not.toContain('Needs human confirmation');
    expect(await report.getByRole('note').textContent()).toContain('MOCK log source');
    // The notice says MOCK once; the server's copy of it at the end of the scope is not repeated.
    const scopeLine = report.locator('p').filter({ hasText: 'Scope:' });
    expect(await scopeLine.textContent()).not.toContain('Log evidence comes from a MOCK source');

    const references = report.locator('li.reference');
    expect(await references.count()).toBe(2);
    const referenceText = (await references.allTextContents()).join('\n');
    expect(referenceText).toContain('RUNBOOK-EXCERPT HikariPool connection is not available');
    expect(referenceText).toContain('APPLICATION (MOCK)');

    // A citation moves focus to the reference it names.
    const citation = report
      .locator('li[data-analysis-id="a2"]')
      .getByRole('button', { name: /^Reference \d+$/ });
    const referenceId = (await citation.textContent())?.replace(/\D/g, '');
    await citation.click();
    const cited = page.locator(`#turn-1-ref-${referenceId}`);
    expect(await cited.evaluate((element) => element === element.ownerDocument.activeElement)).toBe(true);
    expect(await cited.textContent()).toContain('RUNBOOK-EXCERPT');

    // Reading the report (scrolled up from the page's end), the composer is one line; focused, full size.
    const composer = page.locator('form.composer');
    await page.mouse.wheel(0, -20_000);
    await page.locator('form.composer.compact').waitFor();
    const compactHeight = (await composer.boundingBox())!.height;
    await screenshot(page, 'report-reading');
    await page.getByLabel('Your question').focus();
    await page.locator('form.composer:not(.compact)').waitFor();
    expect((await composer.boundingBox())!.height).toBeGreaterThan(compactHeight * 1.5);
    await page.getByLabel('Your question').blur();

    // A reference links to the tool call it expands in the run's trace, and the call links back.
    const firstReference = page.locator('#turn-1-ref-1');
    await firstReference.getByRole('link', { name: 'tool call in the trace' }).click();
    const marked = page.locator('table.tool-calls tr.marked');
    await marked.waitFor();
    expect(await page.getByRole('tab', { name: /^Tool calls/ }).getAttribute('aria-selected')).toBe('true');
    expect(await marked.evaluate((row) => row === row.ownerDocument.activeElement)).toBe(true);
    expect(await marked.getAttribute('data-tool-call-id')).toMatch(/\S/);
    expect(await page.locator('table.tool-calls tr').filter({ hasText: 'cited as' }).count()).toBe(2);
    await screenshot(page, 'trace-marked-call');
    await marked.getByRole('link', { name: 'cited as [1]' }).click();
    await page.locator('#turn-1-ref-1:focus').waitFor();
    expect(await firstReference.isVisible()).toBe(true);

    // Once released, the progress folds away behind a summary and keeps every step.
    expect(await turn.getAttribute('data-phase')).toBe('COMPLETE');
    const statuses = await turn
      .locator('ol.progress-steps li')
      .evaluateAll((items) => items.map((item) => item.getAttribute('data-status')));
    expect(statuses).toEqual([
      'ROUTING',
      'PLANNING',
      'DIAGNOSIS_PLAN',
      'TOOL_RUNNING',
      'TOOL_DONE',
      'EVIDENCE_VALIDATING',
      'SEMANTIC_VALIDATING',
      'RELEASING',
    ]);
    expect(await turn.locator('details.progress summary').textContent()).toBe('Progress · 8 steps');
    expect(await turn.locator('details.progress').getAttribute('open')).toBeNull();

    // A follow-up question stays in the same session.
    stub.load({
      roles: {
        'intent-router': [{ content: 'SYSTEM_CHAT' }],
        'system-chat': [{ content: 'FOLLOW-UP answer' }],
      },
    });
    const first = await runStatusOf(page);
    await ask(page, '你能做什么？');
    await lastTurn(page).getByText('FOLLOW-UP answer').waitFor();
    const second = await runStatusOf(page);
    expect(second.sessionId).toBe(first.sessionId);
    expect(second.runId).not.toBe(first.runId);
    expect(first.status).toBe('SUCCESS');
  });

  it('shows a knowledge answer with the runbook it was given as its reference', async () => {
    const listed = await fetch(`${suite.app.baseUrl}/api/documents/status/INDEXED`, {
      headers: { 'x-api-key': TEST_KEYS.operator },
    });
    const runbook = (
      (await listed.json()) as { documents: { document_id: string; title: string }[] }
    ).documents.find((document) => document.title === 'Web UI payment runbook');
    stub.load({
      roles: {
        'intent-router': [{ content: 'KNOWLEDGE_QUERY' }],
        'knowledge-answer': [
          {
            content: JSON.stringify({
              answer: 'KB-ANSWER ERR_TIMEOUT means the pool had no free connection for 30 s.',
              references: [runbook?.document_id],
              limitations: 'Only the internal knowledge base was searched.',
            }),
          },
        ],
        'knowledge-guard': [SUPPORTED],
      },
    });
    const page = await openUi({ apiKey: TEST_KEYS.operator });
    await ask(page, 'What does ERR_TIMEOUT from HikariPool mean?');
    const answer = lastTurn(page).getByRole('article', { name: 'Knowledge answer' });
    await answer.waitFor({ timeout: scaled(20_000) });
    expect(await answer.locator('.answer-text').textContent()).toContain('KB-ANSWER');
    expect(await answer.locator('li.reference').allTextContents()).toEqual([
      expect.stringContaining('Web UI payment runbook'),
    ]);
  });

  it('labels a fallback as such and never as a diagnosis', async () => {
    stub.load({
      roles: { ...ROUTE_DIAGNOSIS, 'diagnosis-agent': agentReplies(0), 'semantic-guard': [UNSUPPORTED] },
    });
    const page = await openUi({ apiKey: TEST_KEYS.operator });
    await ask(page, 'order-123 payment timeout, find out why');
    const fallback = lastTurn(page).getByRole('article', { name: 'No verified diagnosis' });
    await fallback.waitFor({ timeout: scaled(20_000) });
    await screenshot(page, 'fallback');
    expect(await fallback.textContent()).toContain('The evidence does not support a conclusion');
    expect(await page.getByRole('article', { name: 'Diagnosis report' }).count()).toBe(0);
    expect(await page.content()).not.toContain('UI-CONCLUSION');
    expect((await runStatusOf(page)).status).toBe('FALLBACK');
  });

  it('shows the failure message when the run fails', async () => {
    // The router's provider fails twice with HTTP 500: a transient provider class, named as such.
    stub.load({ roles: { 'intent-router': [{ error: 500 }, { error: 500 }] } });
    const page = await openUi({ apiKey: TEST_KEYS.operator });
    await ask(page, 'order-123 payment timeout');
    const alert = lastTurn(page).getByRole('alert');
    await alert.waitFor({ timeout: scaled(20_000) });
    expect(await alert.textContent()).toContain('The language model is unavailable');
    expect(await lastTurn(page).getAttribute('data-phase')).toBe('COMPLETE');
  });

  it('stops a running diagnosis: the request is aborted and the run, followed on its trace page, ends CANCELLED', async () => {
    stub.load({ roles: { ...ROUTE_DIAGNOSIS, 'diagnosis-agent': agentReplies(30_000) } });
    const page = await openUi({ apiKey: TEST_KEYS.operator });
    await ask(page, 'order-123 payment timeout, find out why');
    await lastTurn(page).locator('li[data-status="TOOL_RUNNING"]').waitFor();

    // Another tab follows the run while it is still going.
    const { sessionId, runId, status } = await runStatusOf(page);
    expect(status).toBe('RUNNING');
    const tracePage = await openUi({ apiKey: TEST_KEYS.operator }, `#/runs/${sessionId}/${runId}`);
    const runStatus = tracePage.locator('[data-field="status"]');
    await runStatus.filter({ hasText: 'RUNNING' }).waitFor();

    await page.getByRole('button', { name: 'Stop' }).click();
    await lastTurn(page).getByRole('status').filter({ hasText: 'Stopped' }).waitFor();
    await screenshot(page, 'stopped');
    expect(await lastTurn(page).getAttribute('data-phase')).toBe('STOPPED');
    await page.getByRole('button', { name: 'Send' }).waitFor();

    await runStatus.filter({ hasText: 'CANCELLED' }).waitFor({ timeout: scaled(10_000) });
    await screenshot(tracePage, 'stopped-trace');
    expect((await runStatusOf(page)).status).toBe('CANCELLED');

    await page.getByRole('button', { name: 'New session' }).click();
    expect(await page.locator('li.turn').count()).toBe(0);
    expect(await page.locator('p.session').textContent()).not.toContain(sessionId);
  });

  it('renders a run’s trace: summary, budget, tool calls; the reasoning tab only with an auditor key', async () => {
    stub.load({
      roles: { ...ROUTE_DIAGNOSIS, 'diagnosis-agent': agentReplies(0), 'semantic-guard': [SUPPORTED] },
    });
    const page = await openUi({ apiKey: TEST_KEYS.operator });
    await ask(page, 'order-123 payment timeout, find out why');
    await lastTurn(page)
      .getByRole('article', { name: 'Diagnosis report' })
      .waitFor({ timeout: scaled(20_000) });
    const { sessionId, runId } = await runStatusOf(page);
    await lastTurn(page).getByRole('link', { name: 'View the run trace' }).click();

    await page.getByRole('heading', { name: `Run ${runId}` }).waitFor();
    expect(await page.locator('[data-field="status"]').textContent()).toBe('SUCCESS');
    expect(await page.locator('[data-field="tool_calls"]').textContent()).toBe('2');
    expect(Number(await page.locator('[data-field="model_calls"]').textContent())).toBeGreaterThanOrEqual(3);
    expect(await page.getByRole('tab').allTextContents()).toEqual([
      'Timeline',
      'Tool calls (2)',
      'Model steps (4)',
    ]);

    // Keyboard: the arrow key moves to the next tab and selects it.
    await page.getByRole('tab', { name: 'Timeline' }).focus();
    await page.keyboard.press('ArrowRight');
    const toolCalls = page.getByRole('region', { name: 'Tool calls' });
    await toolCalls.waitFor();
    await screenshot(page, 'trace-tool-calls');
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(await fitsWidth(page, 390)).toBe(true);
    const rows = await toolCalls.locator('tbody tr').allTextContents();
    expect(rows).toHaveLength(2);
    expect(rows.find((row) => row.includes('call_kb_1'))).toMatch(/lookup_knowledge.*READY.*EVIDENCE_FOUND/);
    expect(rows.find((row) => row.includes('call_logs_1'))).toMatch(/query_logs.*READY.*EVIDENCE_FOUND/);
    expect(await page.content()).not.toContain('UI-REASONING-MARKER');

    const auditorPage = await openUi(
      { apiKey: TEST_KEYS.operator, auditorKey: TEST_KEYS.auditor },
      `#/runs/${sessionId}/${runId}`,
    );
    await auditorPage.getByRole('tab', { name: 'Reasoning (audit)' }).click();
    await auditorPage.getByText('UI-REASONING-MARKER the pool looks exhausted').waitFor();
    await screenshot(auditorPage, 'trace-reasoning');

    await auditorPage.goto(`${suite.app.baseUrl}/#/runs/${sessionId}`);
    const runs = auditorPage.getByRole('region', { name: 'Runs' });
    await runs.getByRole('link', { name: 'order-123 payment timeout, find out why' }).waitFor();
    // A run that was sent to notification targets shows each delivery and why one failed.
    const connection = await createConnection({ ...TEST_MYSQL, database: process.env.DB_NAME });
    try {
      await connection.query(
        `INSERT INTO notification_delivery
           (run_id, target_name, target_kind, run_trigger, status, failure, attempts, last_http_status, vendor_code, owner_id)
         VALUES (?, 'ops-slack', 'slack', 'chat', 'DELIVERED', NULL, 2, 200, NULL, 'browser'),
                (?, 'ops-wecom', 'wecom', 'chat', 'FAILED', 'VENDOR_ERROR', 1, 200, 93000, 'browser')`,
        [runId, runId],
      );
    } finally {
      await connection.end();
    }
    await page.reload();
    await page.getByRole('tab', { name: 'Notifications (2)' }).click();
    const notifications = page.getByRole('region', { name: 'Notifications' });
    const deliveries = await notifications.locator('tbody tr').allTextContents();
    expect(deliveries).toHaveLength(2);
    expect(deliveries[0]).toMatch(/ops-slack.*slack.*chat.*DELIVERED.*2.*200/);
    expect(deliveries[1]).toMatch(/ops-wecom.*wecom.*chat.*FAILED.*VENDOR_ERROR.*1.*200.*93000/);
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('shows why a request is refused: an invalid API key', async () => {
    const page = await openUi({ apiKey: 'not-a-valid-key-at-all' });
    await ask(page, 'hello');
    const alert = lastTurn(page).getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('The API key is not valid.');
    expect(await lastTurn(page).getAttribute('data-phase')).toBe('ERROR');
  });

  it('lists the key’s own sessions on the Runs page, so no session id has to be pasted', async () => {
    stub.load({
      roles: { 'intent-router': [{ content: 'SYSTEM_CHAT' }], 'system-chat': [{ content: 'hi' }] },
    });
    const question = `SESSION-LIST-MARKER ${Date.now()} what can you do?`;
    const chat = await postChat(suite.app.baseUrl, { query: question }, { apiKey: TEST_KEYS.operator });
    const sessionId = String(chat.events[0].data.session_id);

    const page = await openUi({ apiKey: TEST_KEYS.operator }, '#/runs');
    const sessions = page.getByRole('region', { name: 'Your sessions' });
    const link = sessions.getByRole('link', { name: question });
    await link.waitFor();
    // Newest run first: the session just created heads the list.
    expect(await sessions.locator('tbody tr').first().getAttribute('data-session-id')).toBe(sessionId);
    // The outcome is a badge, so a failed or fallback run never reads like a success.
    const outcome = sessions.locator('tbody tr').first().locator('.badge');
    expect(await outcome.textContent()).toBe('SUCCESS');
    expect(await outcome.getAttribute('class')).toContain('status-success');
    await screenshot(page, 'sessions');
    expect(await accessibilityViolations(page)).toEqual([]);
    await link.click();
    await page.getByRole('heading', { name: `Session ${sessionId}` }).waitFor();

    // Another key's list never shows it.
    const other = await openUi({ apiKey: TEST_KEYS.auditor }, '#/runs');
    await other
      .getByRole('region', { name: 'Your sessions' })
      .getByText('This API key has no sessions yet')
      .waitFor();
  });

  it('shows alert-started investigations with their ALERT badge and labels, on the list, the session and the trace', async () => {
    const alertname = `UiAlertMarker${Date.now()}`;
    const [plan, final] = agentTurns(draftJson({ marker: 'UI-ALERT' }));
    stub.load({
      roles: {
        'diagnosis-agent': [
          { ...plan, match: alertname, turn: 0 },
          { ...final, match: alertname, turn: 1 },
        ],
        'semantic-guard': [{ ...SUPPORTED, match: '.' }],
      },
    });
    const labels = { alertname, severity: 'critical', service: 'order-service' };
    const answer = await postAlert(
      suite.app.baseUrl,
      alertmanagerBody({ groupKey: `{}:{alertname="${alertname}"}`, labels }),
    );
    expect(answer.body.outcome).toBe('INVESTIGATION_STARTED');
    const sessionId = answer.body.session_id!;
    const runId = answer.body.run_ids![0];
    await waitForRunEnd(suite.app.baseUrl, sessionId, runId);

    const page = await openUi({ apiKey: TEST_KEYS.operator }, '#/runs');
    const alerts = page.getByRole('region', { name: 'Alert investigations' });
    const row = alerts.locator(`tr[data-session-id="${sessionId}"]`);
    await row.waitFor();
    expect(await row.locator('.badge.alert').textContent()).toBe('ALERT');
    await row.getByText(`alertname=${alertname}`).waitFor();
    await row.getByText('severity=critical').waitFor();
    // Never in the key's own list: the group's session belongs to no key.
    expect(
      await page
        .getByRole('region', { name: 'Your sessions' })
        .locator(`tr[data-session-id="${sessionId}"]`)
        .count(),
    ).toBe(0);
    expect(await accessibilityViolations(page)).toEqual([]);

    await row.getByRole('link').click();
    const panel = page.getByRole('region', { name: 'Alert group' });
    await panel.getByText('INVESTIGATION_STARTED').waitFor();
    await panel.getByText(`alertname=${alertname}`).waitFor();
    await page.getByRole('link', { name: /^Alert investigation:/ }).click();
    await page.getByRole('heading', { name: `Run ${runId}` }).waitFor();
    await page.locator('.alert-panel .badge.alert').waitFor();
    await page.locator('.alert-panel').getByText('service=order-service').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
  });
});
