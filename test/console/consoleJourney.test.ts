import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { defaultConsoleDir } from '../../src/http/console.js';
import { addTestUser, type TestUser } from '../support/assistantUsers.js';
import { eventually, startTestApp, type TestApp } from '../support/testApp.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
/**
 * Where the page loads axe-core from: the console's CSP refuses inline scripts, which is how
 * `addScriptTag({ path })` injects one, so the browser fetches it from this origin instead and the
 * test's route answers with node_modules' file. The CSP stays on for everything else.
 */
const AXE_URL = '/console/assets/axe-core-under-test.js';
const SERVICE_KEY = 'journey-service-key';
/** Generous: CI machines run this at a load of 10. */
const WAIT_MS = 90_000;

const TITLE = 'Lighthouse Keeping Manual';
const MANUAL = `# ${TITLE}

## Lamp care

The keeper cleans the lamp lens every morning at sunrise and trims the wick before dusk.

## Fog signals

In fog the horn sounds twice every minute until the fog lifts.
`;

/** An Arabic document: its title must render right to left. */
const ARABIC_TITLE = 'دليل حارس المنارة';
const ARABIC = `# ${ARABIC_TITLE}\n\nينظف الحارس عدسة المصباح كل صباح عند شروق الشمس.\n`;

/** Whether the browser lays an element out right to left (its own `dir`, or `dir="auto"` on its text). */
const rendersRightToLeft = (element: { matches(selector: string): boolean }): boolean =>
  element.matches(':dir(rtl)');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * The web console in a real browser (Debian's chromium through playwright-core) against the whole
 * product: sign in → upload → watch the task's progress → ask → open a citation → chat → approve
 * the pending deletion the chat proposes → the document is gone. Every main view is checked with
 * axe-core (no serious or critical violation), and a screenshot of each step is saved.
 */
describe('The web console in a browser (journey)', function () {
  this.timeout(600_000);
  const screens = process.env['ARCHIVIST_SCREENSHOTS'] ?? join(tmpdir(), 'archivist-console-screens');
  let app: TestApp;
  let admin: TestUser;
  let profile: string;
  let context: BrowserContext;
  let page: Page;
  let base: string;
  const problems: string[] = [];
  let shot = 0;

  before(async function () {
    const built = join(defaultConsoleDir(), 'index.html');
    const missing = !existsSync(CHROMIUM)
      ? `${CHROMIUM} is not installed (Debian package chromium; .ci/provision installs it)`
      : !existsSync(built)
        ? `the console is not built (no ${built}; run npm run build)`
        : null;
    if (missing) {
      console.log(`      skipped: ${missing}`);
      this.skip();
    }
    await mkdir(screens, { recursive: true });
    // Screenshots of an earlier run would mix with this one's.
    for (const name of await readdir(screens))
      if (/^\d{2}-[a-z-]+\.png$/.test(name)) await rm(join(screens, name), { force: true });
    console.log(`      screenshots: ${screens}`);
    app = await startTestApp({ env: { API_KEYS: SERVICE_KEY } });
    admin = await addTestUser(app, 'ada', { admin: true });
    base = (await app.server()).url;
    profile = await mkdtemp(join(tmpdir(), 'archivist-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_FLAGS,
      viewport: { width: 1280, height: 900 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    await context.route(`**${AXE_URL}`, (route) =>
      route.fulfill({ path: AXE, contentType: 'text/javascript; charset=utf-8' }),
    );
    page.setDefaultTimeout(WAIT_MS);
    // What the page itself reports: script errors, and anything the CSP refused.
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy|Refused to/.test(message.text()))
        problems.push(`console: ${message.text()}`);
    });
  });
  after(async () => {
    await context?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
    await app?.stop();
  });

  const screenshot = async (name: string): Promise<void> => {
    shot += 1;
    await page.screenshot({
      path: join(screens, `${String(shot).padStart(2, '0')}-${name}.png`),
      fullPage: true,
    });
  };

  /** axe-core on the page as it is: no violation of impact serious or critical. */
  const checkAccessibility = async (view: string): Promise<void> => {
    if (!(await page.evaluate('typeof window.axe !== "undefined"')))
      await page.addScriptTag({ url: AXE_URL });
    const violations = (await page.evaluate(
      `axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations.map((v) => ({
        id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((node) => node.target.join(' ')),
      })))`,
    )) as Violation[];
    const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    if (serious.length > 0) console.log(`      axe violations in ${view}:`, JSON.stringify(serious, null, 2));
    expect(serious, `serious or critical accessibility violations in ${view}`).to.deep.equal([]);
  };

  const openSection = async (label: string): Promise<void> => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: label }).click();
    await page.getByRole('heading', { level: 1, name: label }).waitFor();
  };

  it('sends the browser from / to the sign-in form, and signs in', async () => {
    await page.goto(`${base}/`);
    expect(new URL(page.url()).pathname).to.equal('/console/');
    await page.getByRole('heading', { name: 'Sign in to Archivist' }).waitFor();
    await checkAccessibility('sign-in');
    await screenshot('sign-in');
    await page.getByLabel('User name').fill(admin.name);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Documents' }).waitFor();
    await page.getByText(`${admin.name} (administrator)`).waitFor();
    await checkAccessibility('documents (empty)');
  });

  it('uploads a document and shows its task progressing to completed', async () => {
    await openSection('Upload');
    await checkAccessibility('upload');
    await page.getByLabel('Files', { exact: true }).setInputFiles([
      { name: 'lighthouse-manual.md', mimeType: 'text/markdown', buffer: Buffer.from(MANUAL) },
      { name: 'arabic-manual.md', mimeType: 'text/markdown', buffer: Buffer.from(ARABIC) },
    ]);
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    const item = page.locator('.uploads li', { hasText: 'lighthouse-manual.md' });
    await item.locator('.status', { hasText: 'completed' }).waitFor();
    // The title is isolated from the sentence (FSI … PDI), for titles written right to left.
    await item.getByText(`Stored “\u2068${TITLE}\u2069”: 1 chunk (`).waitFor();
    expect(await item.locator('progress').getAttribute('value')).to.equal('1');
    // The result names the stages the ingestion went through.
    expect(await item.textContent())
      .to.include('parse')
      .and.include('embed')
      .and.include('index');
    const arabic = page.locator('.uploads li', { hasText: 'arabic-manual.md' });
    await arabic.locator('.status', { hasText: 'completed' }).waitFor();
    await checkAccessibility('upload with progress');
    await screenshot('upload-completed');

    await openSection('Documents');
    await page.getByRole('cell', { name: TITLE, exact: true }).waitFor();
    const arabicTitle = page.getByRole('cell', { name: ARABIC_TITLE, exact: true });
    expect(await arabicTitle.evaluate(rendersRightToLeft)).to.equal(true);
    expect(await page.getByRole('cell', { name: TITLE, exact: true }).evaluate(rendersRightToLeft)).to.equal(
      false,
    );
    // Narrowed by the list API: only the Arabic document is left, then both again.
    await page.getByLabel('Language').selectOption('ar');
    await page
      .getByRole('status')
      .filter({ hasText: /^1 documents/ })
      .waitFor();
    expect(await page.getByRole('cell', { name: TITLE, exact: true }).count()).to.equal(0);
    await arabicTitle.waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByRole('cell', { name: TITLE, exact: true }).waitFor();
    await checkAccessibility('documents');
    await screenshot('documents');
  });

  it('answers a question with sources, and opens a citation with its page, section and excerpt', async () => {
    await openSection('Ask');
    await page.getByLabel('Question').fill('How often does the keeper clean the lamp lens?');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await page.getByRole('heading', { name: 'Answer' }).waitFor();
    await page.locator('.sources li').first().getByRole('button').click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByRole('heading', { name: new RegExp(`Source \\[1\\]: ${TITLE}`) }).waitFor();
    expect(await dialog.locator('dt').allTextContents()).to.include.members(['Page', 'Section']);
    expect(await dialog.locator('.excerpt').textContent()).to.include('lamp lens');
    await checkAccessibility('ask with a citation open');
    await screenshot('citation');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'hidden' });

    await openSection('Search');
    await page.getByLabel('Search terms').fill('fog horn');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.locator('.results li').first().waitFor();
    await checkAccessibility('search');
    await screenshot('search');
  });

  it('chats: the tool calls show as they happen, and the proposed deletion is approved inline', async () => {
    const listed = await app.http.get('/api/v1/documents').set('X-API-Key', SERVICE_KEY).expect(200);
    const docId = (listed.body.documents as Array<{ id: string; metadata: { title: string } }>).find(
      (document) => document.metadata.title === TITLE,
    )!.id;

    await openSection('Chat');
    await page.getByLabel('Message', { exact: true }).fill(`Delete the document about ${TITLE}`);
    await page.getByRole('button', { name: 'Send' }).click();
    const turn = page.locator('.messages .message.assistant').last();
    await turn.locator('.tool', { hasText: 'search_knowledge' }).waitFor();
    const deletion = turn.locator('.tool', { hasText: 'delete_document' });
    await deletion.locator('.badge', { hasText: 'pending confirmation' }).waitFor();
    await page.getByRole('button', { name: 'Send' }).waitFor();
    await checkAccessibility('chat with a pending action');
    await screenshot('chat-pending-action');
    // Still there until someone approves.
    await app.http.get(`/api/v1/documents/${docId}`).set('X-API-Key', SERVICE_KEY).expect(200);

    await deletion.getByRole('button', { name: 'Approve' }).click();
    await deletion.getByText(/^Approved/).waitFor();
    await eventually(
      async () =>
        (await app.http.get(`/api/v1/documents/${docId}`).set('X-API-Key', SERVICE_KEY)).status === 404
          ? true
          : undefined,
      WAIT_MS,
      'the approved deletion',
    );
    await screenshot('chat-approved');

    await openSection('Documents');
    await page.getByRole('status').filter({ hasText: '1 documents' }).waitFor();
    await page.getByRole('cell', { name: ARABIC_TITLE, exact: true }).waitFor();
  });

  it('lists the conversation, and shows the audit stream and health to the administrator', async () => {
    await openSection('Conversations');
    await page.getByRole('cell', { name: /^Delete the document about Lighthouse/ }).waitFor();
    await checkAccessibility('conversations');
    await screenshot('conversations');

    await openSection('Audit');
    await page.getByText('Stream live').waitFor();
    await page.getByRole('cell', { name: 'DocumentDeleted' }).first().waitFor();
    await checkAccessibility('audit');
    await screenshot('audit');

    await openSection('Health');
    await page.getByRole('heading', { name: 'Components' }).waitFor();
    await page.getByRole('heading', { name: 'Statistics' }).waitFor();
    await checkAccessibility('health');
    await screenshot('health');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Archivist' }).waitFor();
    expect(problems, problems.join('\n')).to.deep.equal([]);
  });
});
