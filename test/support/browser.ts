import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, chromium, Page } from 'playwright-core';

/** Debian's chromium (scripts/ensure-browser.sh installs it); CHROMIUM_PATH points elsewhere. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Flags for a root, offline machine: no sandbox (root), no GPU, and no background traffic, which a
 * closed network refuses and which would otherwise slow every start.
 */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `browser tests need Chromium at ${CHROMIUM_PATH}: run scripts/ensure-browser.sh (Debian package chromium) or set CHROMIUM_PATH`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

const SCREENSHOTS = join(__dirname, '..', '..', 'test-artifacts', 'screenshots');

/** A full-page screenshot kept as a test artifact (test-artifacts/ is not committed). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

const AXE_URL = '/__test-axe.js';

/**
 * axe-core's WCAG 2 A/AA rules on the current page, as "rule: element" lines. The script is served as
 * if from the app's own origin, so the UI's Content-Security-Policy stays on for the check.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.route(`**${AXE_URL}`, (route) =>
    route.fulfill({ path: require.resolve('axe-core/axe.min.js') }),
  );
  await page.addScriptTag({ url: AXE_URL });
  return page.evaluate<string[]>(`(async () => {
    const result = await window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } });
    return result.violations.flatMap((violation) =>
      violation.nodes.map((node) => violation.id + ': ' + node.target.join(' ')));
  })()`);
}

/** Whether the page fits a phone's width: wide tables must scroll inside their own region instead. */
export async function fitsWidth(page: Page, width: number): Promise<boolean> {
  const viewport = page.viewportSize();
  await page.setViewportSize({ width, height: 844 });
  const fits = await page.evaluate<boolean>(
    'document.documentElement.scrollWidth <= document.documentElement.clientWidth',
  );
  if (viewport) await page.setViewportSize(viewport);
  return fits;
}
