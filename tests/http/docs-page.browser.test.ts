import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import request from 'supertest';
import { setupTestContext } from '../helpers/context';

/**
 * GET /api/docs in a real browser (headless Chromium), opened over plain HTTP under a host name
 * other than localhost, as someone on the network would open it: browsers treat localhost as a
 * secure origin, so a page that works there can still be blank from http://myserver.local.
 * CI installs Debian's chromium (.ci/run ensure_chromium); CHROMIUM_PATH points to another one.
 */
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const HOST = 'docs.example.test';

const ctx = setupTestContext();
let server: http.Server;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `No Chromium at ${CHROMIUM}: this test opens /api/docs in a real browser. Install Debian's ` +
        '(apt-get install -y --no-install-recommends chromium), or set CHROMIUM_PATH to a Chromium binary.',
    );
  }
  server = http.createServer(ctx.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://${HOST}:${(server.address() as AddressInfo).port}`;
  // the name resolves inside this browser only: no /etc/hosts, no DNS
  browser = await chromium.launch({ executablePath: CHROMIUM, args: [`--host-resolver-rules=MAP ${HOST} 127.0.0.1`] });
});

afterAll(async () => {
  await browser?.close();
  if (server) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

interface OpenedDocs {
  page: Page;
  /** every URL the page requested */
  requested: string[];
  /** every request that got no response, with the browser's reason */
  failed: string[];
  /** every Content-Security-Policy violation the page reported */
  violations: string[];
}

async function openDocs(): Promise<OpenedDocs> {
  const page = await browser.newPage();
  const opened: OpenedDocs = { page, requested: [], failed: [], violations: [] };
  page.on('request', (req) => opened.requested.push(req.url()));
  page.on('requestfailed', (req) => opened.failed.push(`${req.url()}: ${req.failure()?.errorText}`));
  await page.exposeFunction('reportViolation', (text: string) => opened.violations.push(text));
  // as text: this project's TypeScript has no DOM types, and the script runs in the page
  await page.addInitScript({
    content: "document.addEventListener('securitypolicyviolation', (e) => reportViolation(e.violatedDirective + ' ' + e.blockedURI));",
  });
  await page.goto(`${origin}/api/docs`);
  return opened;
}

/** The GET /api/auth/profile block of the page. */
const profileOperation = (page: Page) =>
  page.locator('.opblock-get').filter({ has: page.locator('.opblock-summary-path[data-path="/api/auth/profile"]') });

/** Waits for the operations to render; on a blank page, says what the browser could not load. */
async function rendered(docs: OpenedDocs): Promise<void> {
  try {
    await profileOperation(docs.page).waitFor({ timeout: 15_000 });
  } catch {
    throw new Error(
      `/api/docs rendered no operations in 15 s; failed requests: ${JSON.stringify(docs.failed)}; ` +
        `CSP violations: ${JSON.stringify(docs.violations)}`,
    );
  }
}

// a browser's start and a page of 300 operations take seconds on a loaded 2-CPU machine
jest.setTimeout(60_000);

describe('GET /api/docs in headless Chromium, over plain HTTP from a host other than localhost', () => {
  let docs: OpenedDocs;
  beforeEach(async () => {
    docs = await openDocs();
  });
  afterEach(async () => {
    await docs.page.close();
  });

  test('renders the operations, every request going to the same http origin', async () => {
    const { page } = docs;
    await rendered(docs);
    await expect(profileOperation(page).locator('.opblock-summary-description').textContent()).resolves.toBe("The caller's profile");
    expect(await page.locator('.opblock').count()).toBeGreaterThan(50);

    // nothing upgraded to https, nothing fetched from elsewhere, nothing refused by the CSP
    expect(docs.requested.filter((url) => !url.startsWith(`${origin}/`))).toEqual([]);
    expect(docs.failed).toEqual([]);
    expect(docs.violations).toEqual([]);
  });

  test("'Try it out' on GET /api/auth/profile, authorized with the admin's bearer token, shows 200", async () => {
    const login = await request(ctx.app).post('/api/auth/login').send({ email: ctx.config.admin.email, password: ctx.config.admin.password });
    expect(login.status).toBe(200);
    const token: string = login.body.data.token;
    const { page } = docs;
    await rendered(docs);

    await page.locator('button.authorize').first().click();
    const bearer = page.locator('.auth-container').filter({ has: page.locator('h4', { hasText: /^bearer\b/ }) });
    await bearer.locator('input').fill(token);
    await bearer.locator('button.authorize').click();
    await page.locator('.modal-ux button.close-modal').click();

    const operation = profileOperation(page);
    await operation.locator('.opblock-summary').first().click();
    await operation.locator('button.try-out__btn').click();
    const sent = page.waitForRequest((req) => req.url() === `${origin}/api/auth/profile`);
    await operation.locator('button.execute').click();
    expect((await sent).headers().authorization).toBe(`Bearer ${token}`);

    const live = operation.locator('.live-responses-table tbody tr.response');
    await expect(live.locator('.response-col_status').first().textContent()).resolves.toMatch(/^\s*200\b/);
    await expect(live.locator('.response-col_description').first().textContent()).resolves.toContain(ctx.config.admin.email);
    expect(docs.requested.filter((url) => !url.startsWith(`${origin}/`))).toEqual([]);
    expect(docs.failed).toEqual([]);
  });
});
