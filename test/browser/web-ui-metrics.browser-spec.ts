import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { RunningApp, startApp } from '../support/app-under-test';
import { accessibilityViolations, fitsWidth, launchBrowser, screenshot } from '../support/browser';
import { demoIncidentMetrics } from '../support/demo-metrics';
import { PrometheusServer } from '../support/prometheus';
import { StubLlmServer } from '../support/stub-llm/stub-llm-server';
import { TEST_KEYS } from '../support/test-env';
import { scaled } from '../support/test-timeouts';

// The longest test or hook here needs up to 60 s on an idle machine; the suite's
// time scale (TEST_TIMEOUT_SCALE) raises it with every other deadline.
jest.setTimeout(scaled(60_000));

/**
 * Issue 30: metric evidence read in the web UI. The demo's metrics follow-up, played as `npm run demo`
 * plays it (its stub script, its metrics allowlist, its incident backfilled into a real Prometheus):
 * each cited query_metrics series shows its labels, a sparkline and its figures, and the report still
 * fits a phone's width.
 */
jest.setTimeout(60_000);

const prometheus = new PrometheusServer();
const stub = new StubLlmServer();
let app: RunningApp | undefined;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  const now = new Date();
  const prometheusUrl = await prometheus.start(demoIncidentMetrics(now.getTime()));
  app = await startApp({
    LLM_BASE_URL: await stub.start(),
    METRICS_TOOLS_CONFIG: 'demo/metrics-tools.yaml',
    PROMETHEUS_URL: prometheusUrl,
    METRICS_NOW: now.toISOString(),
  });
  stub.load(JSON.parse(readFileSync('demo/stub-llm-script.json', 'utf8')));
});

// The pages go first: the app's close waits for their open connections.
afterAll(async () => {
  await Promise.all(contexts.map((context) => context.close()));
  await browser?.close();
  await app?.close();
  await stub.stop();
  await prometheus.stop();
});

async function openUi(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1000, height: 640 } });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`${app!.baseUrl}/`);
  const dialog = page.getByRole('dialog', { name: 'API keys' });
  await dialog.getByLabel('API key', { exact: true }).fill(TEST_KEYS.operator);
  await dialog.getByRole('button', { name: 'Save keys' }).click();
  await dialog.waitFor({ state: 'hidden' });
  return page;
}

describe('web UI: metric evidence', () => {
  it('shows each cited series with its labels, a sparkline and its figures', async () => {
    const page = await openUi();
    await page.getByLabel('Your question').fill('payment-service 饱和了吗？查一下它的指标');
    await page.getByRole('button', { name: 'Send' }).click();
    const report = page.getByRole('article', { name: 'Diagnosis report' });
    await report.waitFor({ timeout: scaled(20_000) });

    const references = report.locator('li.reference');
    expect(await references.count()).toBe(3);
    for (const [index, metric] of [
      'hikaricp_connections_active',
      'hikaricp_connections_max',
      'hikaricp_connections_pending',
    ].entries()) {
      const reference = references.nth(index);
      expect(await reference.locator('.scope').textContent()).toContain(metric);
      // One figure per series, each with its own sparkline: order-service and payment-service.
      const series = reference.locator('figure.series');
      expect(await series.locator('figcaption').allTextContents()).toEqual([
        expect.stringContaining('service=order-service'),
        expect.stringContaining('service=payment-service'),
      ]);
      expect(await series.locator('svg.sparkline polyline').count()).toBe(2);
    }
    // order-service's active connections: the values Prometheus answered, pinned at the pool's 50.
    const active = references.nth(0).locator('figure.series').first();
    expect(await active.locator('dt').allTextContents()).toEqual(['min', 'max', 'mean', 'last']);
    expect(await active.locator('dd').nth(1).textContent()).toBe('50');
    const box = await active.locator('svg.sparkline').boundingBox();
    expect(box!.width).toBeGreaterThan(100);
    expect(box!.height).toBeGreaterThan(15);

    // Drawn from zero (viewBox y 22 = zero, y 2 = the series' top): a constant pool size along the top,
    // the payment pool's queue, always 0, along the bottom.
    const heights = async (reference: number, series: number) =>
      new Set(
        (await references
          .nth(reference)
          .locator('svg.sparkline polyline')
          .nth(series)
          .getAttribute('points'))!
          .split(' ')
          .map((point) => Number(point.split(',')[1])),
      );
    expect(await heights(1, 0)).toEqual(new Set([2]));
    expect(await heights(2, 1)).toEqual(new Set([22]));

    await references.nth(0).scrollIntoViewIfNeeded();
    await screenshot(page, 'metric-evidence');
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(await fitsWidth(page, 390)).toBe(true);
    await page.setViewportSize({ width: 390, height: 844 });
    await references.nth(0).scrollIntoViewIfNeeded();
    await page.screenshot({ path: 'test-artifacts/screenshots/metric-evidence-phone.png' });
  });
});
