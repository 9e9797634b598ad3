/**
 * The API reference page (`GET /docs`) in headless Chromium (Debian's, installed by
 * .ci/setup-browser.sh), driven by playwright-core: credentials entered in the page load the
 * combined document, every quickstart service is listed, and one authenticated GET is sent from
 * the page, with no console errors. Chromium missing: fails under CI, skipped with a message elsewhere.
 */
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyQuickstart, startQuickstart, type RunningQuickstart } from '#test/helpers/quickstart-copy.js';

const CHROMIUM = process.env.PORTICO_CHROMIUM ?? '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) {
  if (process.env.CI === 'true') throw new Error(`Chromium is missing at ${CHROMIUM}: run .ci/setup-browser.sh as root.`);
  console.warn(`Chromium not found at ${CHROMIUM}: skipping the API docs page test (run .ci/setup-browser.sh).`);
}

const ADMIN = { email: 'docs@portico.local', password: 'docs-password-0123456789' };
let server: RunningQuickstart;
let browser: Browser;

beforeAll(async () => {
  if (!hasChromium) return;
  server = await startQuickstart(copyQuickstart(), {
    PORTICO_ADMIN_EMAIL: ADMIN.email,
    PORTICO_ADMIN_PASSWORD: ADMIN.password,
    PORTICO_LOG_LEVEL: 'silent',
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (server) fs.rmSync(server.dir, { recursive: true, force: true });
});

describe.skipIf(!hasChromium)('GET /docs', () => {
  it('lists every service and sends an authenticated GET from the page, with no console errors', { timeout: 120_000 }, async () => {
    const login = await fetch(`${server.url}/api/v2/system/admin/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Service-API-Key': server.apiKey },
      body: JSON.stringify(ADMIN),
    });
    const token = ((await login.json()) as { session_token: string }).session_token;
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    const outside: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(server.url) && !request.url().startsWith('data:')) outside.push(request.url());
    });

    await page.goto(`${server.url}/docs`);
    await page.fill('#api-key', server.apiKey);
    await page.fill('#session-token', token);
    await page.click('button[type=submit]');
    await page.waitForSelector('h3.opblock-tag[data-tag="db"]', { timeout: 60_000 });
    const tags = await page.$$eval('h3.opblock-tag', (nodes) => nodes.map((node) => node.getAttribute('data-tag')));
    for (const service of ['system', 'api_docs', 'files', 'logs', 'db', 'email', 'user']) expect(tags).toContain(service);

    // GET /db/_table/{table_name} for contact: open it, try it out, execute.
    await page.click('h3.opblock-tag[data-tag="db"]');
    const operation = page.locator('#operations-db-getDbTableRecords');
    await operation.locator('.opblock-summary-control').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('tr[data-param-name="table_name"] input').fill('contact');
    await operation.locator('button.execute').click();
    const status = operation.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor({ timeout: 30_000 });
    expect((await status.textContent())?.trim()).toBe('200');
    expect(await operation.locator('.live-responses-table tbody .response-col_description pre').first().textContent()).toContain(
      '"resource"',
    );
    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
  });

  it('serves its assets from this server, and 404 in the error envelope for others', async () => {
    const bundle = await fetch(`${server.url}/docs/assets/swagger-ui-bundle.js`);
    expect([bundle.status, bundle.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
    const missing = await fetch(`${server.url}/docs/assets/..%2Fpackage.json`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 404 } });
  });
});
