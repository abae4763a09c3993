import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { useStubbedApp } from '../support/app-under-test';
import { launchBrowser, screenshot } from '../support/browser';
import { agentTurns, draftJson, SUPPORTED } from '../support/diagnosis-scripts';
import { TEST_KEYS } from '../support/test-env';
import { scaled } from '../support/test-timeouts';

/**
 * What a new user found hard to read in the web UI: a follow-up's answer hidden under the sticky
 * composer, progress rows repeating their label, raw JSON in the reasoning tab, and a run duration the timeline contradicted.
 */
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
const PLAN = '1. check order-service logs for pool errors\n2. look up the runbook\n3. conclude';

let browser: Browser;
const contexts: BrowserContext[] = [];

async function openUi(keys: { apiKey: string; auditorKey?: string }, hash = ''): Promise<Page> {
  // A laptop-sized window, so a report is taller than the view.
  const context = await browser.newContext({ viewport: { width: 1000, height: 640 } });
  contexts.push(context);
  await context.route(
    (url) => url.origin !== suite.app.baseUrl,
    (route) => route.abort(),
  );
  const page = await context.newPage();
  await page.goto(`${suite.app.baseUrl}/${hash}`);
  const dialog = page.getByRole('dialog', { name: 'API keys' });
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

function diagnosisScript() {
  return {
    roles: {
      'intent-router': [{ content: 'DIAGNOSIS' }],
      'diagnosis-agent': agentTurns(draftJson({ marker: 'READING' })).map((reply, index) =>
        index === 0 ? { ...reply, content: PLAN } : reply,
      ),
      'semantic-guard': [SUPPORTED],
    },
  };
}

describe('web UI: reading a conversation and a run', () => {
  it('shows a follow-up’s answer in view above the composer, progress rows show their label once', async () => {
    stub.load(diagnosisScript());
    const page = await openUi({ apiKey: TEST_KEYS.operator });
    await ask(page, '订单 order-123 支付超时，帮我排查');
    await lastTurn(page)
      .getByRole('article', { name: 'Diagnosis report' })
      .waitFor({ timeout: scaled(20_000) });

    const rows = lastTurn(page).locator('ol.progress-steps li');
    const texts = await rows.evaluateAll((items) =>
      items.map((item) => ({
        status: item.getAttribute('data-status'),
        label: item.querySelector('.step-label')?.textContent ?? '',
        message: item.querySelector('.step-message')?.textContent ?? null,
      })),
    );
    // Fixed statuses show their label alone; the plan and tool rows add what they carry.
    for (const row of texts.filter(
      (r) => !['DIAGNOSIS_PLAN', 'TOOL_RUNNING', 'TOOL_DONE'].includes(r.status!),
    )) {
      expect(row.message).toBeNull();
    }
    // The plan row carries the code-built plan text, not the label again.
    expect(texts.find((row) => row.status === 'DIAGNOSIS_PLAN')?.message).toContain('plan:');

    stub.load({
      roles: {
        'intent-router': [{ content: 'SYSTEM_CHAT' }],
        'system-chat': [{ content: 'FOLLOW-UP-ANSWER the assistant explains what it can do', delay_ms: 300 }],
      },
    });
    await ask(page, '你能做什么？');
    const answer = lastTurn(page).getByText('FOLLOW-UP-ANSWER');
    await answer.waitFor();
    await screenshot(page, 'chat-follow-up-in-view');
    const box = await answer.boundingBox();
    const composer = await page.locator('form.composer').boundingBox();
    expect(box).not.toBeNull();
    expect(box!.y).toBeGreaterThanOrEqual(0);
    expect(box!.y + box!.height).toBeLessThanOrEqual(composer!.y);
  });

  it('pretty-prints JSON in the reasoning tab, and the run duration matches the timeline’s end', async () => {
    stub.load(diagnosisScript());
    const page = await openUi({ apiKey: TEST_KEYS.operator, auditorKey: TEST_KEYS.auditor });
    await ask(page, 'order-123 payment timeout, find out why');
    await lastTurn(page)
      .getByRole('article', { name: 'Diagnosis report' })
      .waitFor({ timeout: scaled(20_000) });
    await lastTurn(page).getByRole('link', { name: 'View the run trace' }).click();
    await page.locator('[data-field="status"]').filter({ hasText: 'SUCCESS' }).waitFor();

    const duration = await page.locator('[data-field="duration"]').textContent();
    const offsets = await page.locator('ol.timeline li time').allTextContents();
    expect(offsets.at(-1)).toBe(`+${duration}`);

    await page.getByRole('tab', { name: 'Reasoning (audit)' }).click();
    const draft = page.locator('ol.reasoning pre').filter({ hasText: 'READING payment timeouts' });
    await draft.waitFor();
    const text = (await draft.textContent()) ?? '';
    expect(text).toContain('{\n  "conclusion": {\n    "text": "READING payment timeouts');
    await screenshot(page, 'trace-reasoning-pretty');
  });
});
