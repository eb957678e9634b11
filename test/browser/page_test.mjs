// The operator page in a real browser (issue 19): Debian's chromium, driven by playwright-core,
// against `quell run` on quell-sim and a loopback webhook receiver, on a real SQLite file.
//
// The sim's scenario (data/story.json) fails grp_checkout at polls 1-2, resolves it at poll 3
// (one healthy poll), fails it again from poll 4; grp_search fails throughout. The receiver
// answers 500 to the first attempt of each open, so each open is a retried send. Run A has
// closed reads: the page asks for the token, a forged one shows nothing and acks nothing, the
// right one shows the list, the incident's story and acks. The test then resolves grp_checkout
// in the sim (two healthy polls close it) to see the resolve on the timeline. Run B, on the
// same file with open reads, shows the list without a token while Acknowledge still needs it.
//
// Environment (set by the ctest entry, test/browser/CMakeLists.txt): QUELL_BINARY,
// QUELL_SIM_BINARY, QUELL_ARTIFACTS (screenshots go there), optional QUELL_CHROMIUM.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

import {chromium} from 'playwright-core';

import {contrastFailures, scrollWidth, unnamedControls} from './lib/page_checks.mjs';
import {events, logTail, sleep, startQuell, startSim, stop, stopAll, waitFor}
  from './lib/processes.mjs';
import {startReceiver} from './lib/receiver.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const QUELL = process.env.QUELL_BINARY;
const SIM = process.env.QUELL_SIM_BINARY;
const ARTIFACTS = process.env.QUELL_ARTIFACTS || path.join(here, 'artifacts');
const CHROMIUM = process.env.QUELL_CHROMIUM || '/usr/bin/chromium';

const TOKEN = 'tok-browser-e2e-6c1f0a9e3b72d845';
const FORGED = 'tok-browser-e2e-6c1f0a9e3b72d846'; // one character off
const TOKEN_NAME = 'oncall-ana';
const STORY = 'acme:pay:grp_checkout';
const OTHER = 'globex:retrieval:grp_search';
const enc = encodeURIComponent;

// ---- the API, as a tool would call it ------------------------------------------------------

async function api(base, method, route, {token = TOKEN, body} = {}) {
  const headers = {Accept: 'application/json'};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(base + route,
    {method, headers, body: body === undefined ? undefined : JSON.stringify(body)});
  const text = await res.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* kept as text */ }
  return {status: res.status, json, text};
}

async function incident(base, key) {
  const r = await api(base, 'GET', `/v1/incidents/${enc(key)}?limit=500`);
  assert.equal(r.status, 200, `GET /v1/incidents/${key}: ${r.text}`);
  return r.json;
}

// unhealthy / healthy / none for one logged decision (the contract's timeline rule).
function healthOf(d) {
  if (d.decision === 'notify' || d.decision === 'update_only') return 'unhealthy';
  if (d.decision === 'resolve') return d.reason === 'manual' ? 'none' : 'healthy';
  if (d.decision === 'wait_for_health') return 'healthy';
  return 'other';
}

// True when `seq` holds a, then b, then c (not necessarily adjacent).
function inOrder(seq, a, b, c) {
  const i = seq.indexOf(a);
  if (i < 0) return false;
  const j = seq.indexOf(b, i + 1);
  return j >= 0 && (c === undefined || seq.indexOf(c, j + 1) >= 0);
}

// ---- the config ------------------------------------------------------------------------------

function writeConfig(file, {db, receiverUrl, openReads}) {
  fs.writeFileSync(file, `store: sqlite:${db}
infrai:
  base_url: \${INFRAI_BASE_URL}
  retry: {max_attempts: 1}
defaults: {cooldown: 1h, healthy_polls_to_close: 2, channels: [ops-webhook]}
conditions:
  - {name: checkout, type: error_groups, interval: 1s}
channels:
  - name: ops-webhook
    type: webhook
    url: "${receiverUrl}"
    signing: off
    initial_backoff: 200ms
    max_backoff: 1s
dispatch: {lease: 2s, idle_interval: 100ms}
log: {format: json, level: info}
http:
  listen: "127.0.0.1:0"
  public_url: http://quell.example.test
  token_env: QUELL_TOKEN
  token_name: ${TOKEN_NAME}
  open_reads: ${openReads}
`);
}

// ---- the browser -----------------------------------------------------------------------------

const problems = []; // script errors and CSP refusals seen on any page

function watch(page) {
  page.on('pageerror', (e) => problems.push(`page error on ${page.url()}: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) {
      problems.push(`CSP on ${page.url()}: ${m.text()}`);
    }
  });
  return page;
}

// The whole page; `viewport` only what a 1280 x 900 window shows (the doc-*.png that
// scripts/page-screenshots copies to docs/images/).
async function shot(page, name, {viewport = false} = {}) {
  fs.mkdirSync(ARTIFACTS, {recursive: true});
  await page.screenshot({path: path.join(ARTIFACTS, `${name}.png`), fullPage: !viewport});
}

// The checks of every page, at the desktop size and at 360 px (where it screenshots `narrow`).
async function checkPage(page, name, narrow) {
  const names = await unnamedControls(page);
  assert.deepEqual(names.bad, [], `${name}: controls without an accessible name`);
  assert.ok(names.controls >= names.domControls,
    `${name}: ${names.domControls} visible controls but ${names.controls} in the accessibility tree`);
  const contrast = await contrastFailures(page);
  assert.ok(contrast.checked > 0, `${name}: no text checked for contrast`);
  assert.deepEqual(contrast.failures, [], `${name}: contrast below WCAG AA`);
  await shot(page, name);
  const wide = page.viewportSize();
  await page.setViewportSize({width: 360, height: 780});
  // The page has the new width (reading scrollWidth then lays it out anew).
  await page.waitForFunction(() => window.innerWidth === 360);
  const width = await scrollWidth(page);
  assert.ok(width <= 360, `${name}: scrollWidth ${width} > 360 at 360 px wide`);
  if (narrow) await shot(page, narrow);
  await page.setViewportSize(wide);
}

const step = async (what, fn) => {
  const t0 = Date.now();
  await fn();
  console.log(`ok  ${what} (${Date.now() - t0} ms)`);
};

// ---- the test --------------------------------------------------------------------------------

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quell-browser-'));
  console.log(`browser test: work dir ${dir}, screenshots in ${ARTIFACTS}`);
  fs.rmSync(ARTIFACTS, {recursive: true, force: true});
  const receiver = await startReceiver();
  const sim = await startSim(SIM, path.join(here, 'data', 'story.json'), dir);
  const env = {INFRAI_BASE_URL: sim.url, INFRAI_API_KEY: 'ifr_pk_browser_0123456789abcdef',
    QUELL_TOKEN: TOKEN};
  const db = path.join(dir, 'quell.db');
  const configA = path.join(dir, 'closed.yaml');
  writeConfig(configA, {db, receiverUrl: receiver.url, openReads: false});
  let browser;
  let page;
  let quell;
  try {
    quell = await startQuell(QUELL, configA, env, dir, 'quell-closed');
    let base = quell.base;
    let openIk = '';

    await step('the story through the API: failing, one healthy poll, failing again', async () => {
      await waitFor('a healthy decision between failures of ' + STORY, async () => {
        const seq = (await incident(base, STORY)).decisions.slice()
          .sort((a, b) => a.version - b.version).map(healthOf);
        return inOrder(seq, 'unhealthy', 'healthy', 'unhealthy');
      }, 60000);
      const {incident: inc, decisions} = await incident(base, STORY);
      assert.equal(inc.status, 'open');
      assert.ok(decisions.some((d) => d.decision === 'notify' && d.reason === 'open'),
        JSON.stringify(decisions));
    });

    await step('the receiver refused the open once and took the retry', async () => {
      const opens = await waitFor('the open of ' + STORY + ' delivered on its second attempt', () => {
        const rs = receiver.requests.filter((r) => r.key === STORY && r.transition === 'open');
        return rs.some((r) => r.status === 200) && rs;
      }, 30000);
      assert.equal(opens[0].status, 500);
      assert.equal(opens[1].status, 200);
      assert.equal(opens[0].idempotency_key, opens[1].idempotency_key);
      openIk = opens[0].idempotency_key;
      const {outbox} = await incident(base, STORY);
      const row = outbox.find((r) => r.idempotency_key === openIk);
      assert.ok(row, JSON.stringify(outbox));
      assert.equal(row.status, 'sent');
    });

    await step('no token, a forged token: the API refuses the ack and nothing changes', async () => {
      for (const token of ['', FORGED]) {
        const r = await api(base, 'POST', `/v1/incidents/${enc(STORY)}/ack`, {token, body: {}});
        assert.equal(r.status, 401, r.text);
        assert.equal(r.json.error.code, 'unauthorized');
        const read = await api(base, 'GET', '/v1/incidents', {token});
        assert.equal(read.status, 401, read.text);
      }
      const {incident: inc} = await incident(base, STORY);
      assert.ok(!inc.acked_by, JSON.stringify(inc));
    });

    browser = await chromium.launch({executablePath: CHROMIUM, args: ['--no-sandbox']});
    const context = await browser.newContext({viewport: {width: 1280, height: 900}});
    page = watch(await context.newPage());

    await step('closed reads, no token: the token form and no data', async () => {
      for (const route of ['/', `/incidents/${enc(STORY)}`]) {
        await page.goto(base + route);
        await page.locator('#token-form').waitFor();
        assert.equal(await page.locator('label[for="token"]').innerText(), 'API token');
        await page.getByRole('button', {name: 'Log in'}).waitFor();
        assert.equal(await page.locator('tr[data-key]').count(), 0);
        assert.equal(await page.locator('#timeline li').count(), 0);
        const text = await page.locator('main').innerText();
        assert.ok(!text.includes('Checkout failed') && !text.includes(OTHER), text);
      }
      await checkPage(page, 'token-form');
    });

    await step('a forged token in the form shows nothing', async () => {
      await page.goto(base + '/');
      await page.getByLabel('API token').fill(FORGED);
      await page.getByRole('button', {name: 'Log in'}).click();
      await waitFor('the token form to say the token was refused', async () =>
        /refused/i.test(await page.locator('#token-form').innerText({timeout: 1000})), 10000);
      assert.equal(await page.locator('tr[data-key]').count(), 0);
      const {incident: inc} = await incident(base, STORY);
      assert.ok(!inc.acked_by);
    });

    await step('the right token: / lists the open incident and refreshes live', async () => {
      await page.getByLabel('API token').fill(TOKEN);
      await page.getByRole('button', {name: 'Log in'}).click();
      const row = page.locator(`table#incidents tr[data-key="${STORY}"]`);
      await row.waitFor();
      assert.equal(await row.getAttribute('data-status'), 'open');
      assert.equal(await row.locator('td').first().locator('a').getAttribute('href'),
        `/incidents/${enc(STORY)}`);
      assert.equal(await page.locator('#token-form').count(), 0);
      const table = page.locator('table#incidents');
      const before = await table.getAttribute('data-refreshed-at');
      await waitFor('the list to refresh by itself', async () =>
        (await table.getAttribute('data-refreshed-at')) !== before, 12000);
      for (const label of ['Search', 'Condition', 'Label', 'Status']) {
        assert.equal(await page.getByLabel(label, {exact: true}).count(), 1, `filter ${label}`);
      }
    });

    await step('/incidents/{key}: the key, the open, the healthy poll between failures, the retry',
      async () => {
        await page.locator(`tr[data-key="${STORY}"] td a`).first().click();
        await page.waitForURL(`**/incidents/${enc(STORY)}`);
        await page.locator('#timeline li').first().waitFor();
        assert.ok((await page.locator('h1').innerText()).includes(STORY));
        await page.locator('#timeline li.mark[data-transition="open"]').first().waitFor();
        const strip = await page.$$eval('#timeline > li', (lis) => lis.map((li) => ({
          kind: li.classList.contains('mark') ? 'mark' : li.classList.contains('attempt') ? 'attempt' : '',
          health: li.dataset.health, outcome: li.dataset.outcome,
          said: (li.getAttribute('aria-label') || li.getAttribute('title') || '').trim()})));
        const marks = strip.filter((i) => i.kind === 'mark').map((i) => i.health);
        assert.ok(inOrder(marks, 'unhealthy', 'healthy', 'unhealthy'), JSON.stringify(strip));
        const attempts = strip.filter((i) => i.kind === 'attempt').map((i) => i.outcome);
        assert.ok(inOrder(attempts, 'failed', 'sent'), JSON.stringify(strip));
        assert.deepEqual(strip.filter((i) => !i.said), [], 'every strip item says what and when');
        assert.ok((await page.locator('#messages').innerText()).includes(openIk));
        for (const id of ['#generations', '#evidence', '#incident-status', '#acked-by']) {
          assert.equal(await page.locator(id).count(), 1, id);
        }
        assert.match(await page.locator('#incident-status').innerText(), /open/i);
      });

    await step('Acknowledge with the token shows who acked, and the API agrees', async () => {
      assert.ok(!(await page.locator('#acked-by').innerText()).includes(TOKEN_NAME));
      // The page's own refresh reads the incident every 5 s. Hold the answer of one that was
      // read before the ack until after the ack's reload has drawn: the page must not draw
      // that older read over the newer one (it did, and showed the incident unacked again).
      const story = `**/v1/incidents/${enc(STORY)}?limit=200`;
      let readBefore;
      let answered;
      const readDone = new Promise((resolve) => { answered = resolve; });
      const fetched = new Promise((resolve) => { readBefore = resolve; });
      let held = false;
      await page.route(story, async (route) => {
        if (held) return route.continue();
        held = true;
        const response = await route.fetch();
        readBefore();
        await waitFor('the ack to be drawn before the older read answers', async () =>
          (await page.locator('#acked-by').innerText()).includes(TOKEN_NAME), 10000);
        await route.fulfill({response});
        answered();
      });
      await fetched;
      await page.getByRole('button', {name: 'Acknowledge'}).click();
      await waitFor('#acked-by to name ' + TOKEN_NAME, async () =>
        (await page.locator('#acked-by').innerText()).includes(TOKEN_NAME), 10000);
      await readDone;
      await page.unroute(story);
      // The older read's page goes on to read the timeline before it would draw: give it that
      // read's time, checking all along that the ack stays shown.
      for (let i = 0; i < 10; i++) {
        assert.ok((await page.locator('#acked-by').innerText()).includes(TOKEN_NAME),
          'an older read was drawn over the ack');
        await sleep(100);
      }
      const {incident: inc} = await incident(base, STORY);
      assert.equal(inc.acked_by, TOKEN_NAME);
      assert.equal((await incident(base, OTHER)).incident.acked_by || '', '');
    });

    await step('every page: screenshot, names, contrast, 360 px', async () => {
      const pages = [['/', 'list', '#incidents tr[data-key]', 'list-360'],
        [`/incidents/${enc(STORY)}`, 'incident', '#timeline li'],
        ['/outbox', 'outbox', '#outbox tr[data-status]'],
        ['/silences', 'silences', 'main form'],
        ['/maintenance', 'maintenance', 'main form'],
        ['/sources', 'sources', 'main table']];
      for (const [route, name, ready, narrow] of pages) {
        await page.goto(base + route);
        await page.locator(ready).first().waitFor();
        await page.waitForLoadState('networkidle');
        await checkPage(page, name, narrow);
        if (name === 'list') await shot(page, 'doc-list', {viewport: true});
      }
    });

    await step('the failures stop: the timeline ends in the resolve', async () => {
      const r = await fetch(`${sim.url}/_sim/groups/grp_checkout/resolve`,
        {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{}'});
      assert.equal(r.status, 200, await r.text());
      await waitFor(STORY + ' to resolve', async () =>
        (await incident(base, STORY)).incident.status === 'resolved', 30000);
      await page.goto(`${base}/incidents/${enc(STORY)}`);
      await page.locator('#timeline li.mark[data-transition="resolve"]').first().waitFor();
      await page.waitForLoadState('networkidle');
      await shot(page, 'incident-resolved');
      await shot(page, 'doc-incident', {viewport: true});
    });

    await stop(quell.proc);
    await context.close();

    // Run B: the same store, reads open.
    const configB = path.join(dir, 'open.yaml');
    writeConfig(configB, {db, receiverUrl: receiver.url, openReads: true});
    quell = await startQuell(QUELL, configB, env, dir, 'quell-open');
    base = quell.base;
    page = watch(await (await browser.newContext({viewport: {width: 1280, height: 900}})).newPage());

    await step('open reads: the list without a token', async () => {
      await page.goto(base + '/');
      await page.locator(`tr[data-key="${OTHER}"]`).waitFor();
      assert.equal(await page.locator(`tr[data-key="${OTHER}"]`).getAttribute('data-status'), 'open');
      assert.equal(await page.locator(`tr[data-key="${STORY}"]`).getAttribute('data-status'),
        'resolved');
      assert.equal(await page.locator('#token-form').count(), 0);
      const unauth = await api(base, 'GET', '/v1/incidents', {token: ''});
      assert.equal(unauth.status, 200);
    });

    await step('open reads: Acknowledge asks for the token; a forged one is refused', async () => {
      await page.goto(`${base}/incidents/${enc(OTHER)}`);
      await page.locator('#timeline li').first().waitFor();
      const ackedBefore = await page.locator('#acked-by').innerText();
      await page.getByRole('button', {name: 'Acknowledge'}).click();
      await page.locator('#token-form').waitFor();
      assert.equal((await incident(base, OTHER)).incident.acked_by || '', '');
      await page.getByLabel('API token').fill(FORGED);
      await page.getByRole('button', {name: 'Log in'}).click();
      await waitFor('the notice to say the token was refused', async () =>
        /refused/i.test(await page.locator('#notice').innerText()), 10000);
      assert.equal(await page.locator('#acked-by').innerText(), ackedBefore);
      assert.equal((await incident(base, OTHER)).incident.acked_by || '', '');
    });

    await step('open reads: with the right token Acknowledge acks', async () => {
      // The refused token left the page logged out, its form shown; Acknowledge asks again.
      // Typing into that form while the ack's refusal is on its way must not be lost when the
      // refusal arrives (the form was drawn anew, emptied, and Log in hit an empty field): the
      // refusal is held until the token is typed.
      const ackUrl = `**/v1/incidents/${enc(OTHER)}/ack`;
      let typed;
      const tokenTyped = new Promise((resolve) => { typed = resolve; });
      let heldAck = false;
      await page.route(ackUrl, async (route) => {
        if (heldAck) return route.continue();
        heldAck = true;
        await tokenTyped;
        await route.continue();
      });
      await page.getByRole('button', {name: 'Acknowledge'}).click();
      await page.getByLabel('API token').fill(TOKEN);
      typed();
      await waitFor('the form to say Acknowledge needs the token', async () =>
        /Acknowledge needs/.test(await page.locator('#token-form-h').innerText()), 10000);
      assert.equal(await page.getByLabel('API token').inputValue(), TOKEN);
      await page.unroute(ackUrl);
      await page.getByRole('button', {name: 'Log in'}).click();
      await waitFor('#acked-by to name ' + TOKEN_NAME, async () =>
        (await page.locator('#acked-by').innerText()).includes(TOKEN_NAME), 10000);
      assert.equal((await incident(base, OTHER)).incident.acked_by, TOKEN_NAME);
      const writes = events(quell.proc, 'http.write');
      assert.ok(writes.some((w) => w.who === TOKEN_NAME), JSON.stringify(writes));
    });

    assert.deepEqual(problems, [], 'script errors or CSP refusals in the page');
    console.log(`browser test: passed; screenshots: ${fs.readdirSync(ARTIFACTS).join(' ')}`);
  } catch (e) {
    if (page) {
      try { await shot(page, 'failure'); } catch { /* the page may be gone */ }
    }
    console.error(`browser test: FAILED: ${e.stack || e}`);
    if (problems.length) console.error(`page problems:\n${problems.join('\n')}`);
    if (quell) console.error(`--- ${quell.proc.name} log (tail):\n${logTail(quell.proc)}`);
    console.error(`receiver saw: ${JSON.stringify(receiver.requests)}`);
    process.exitCode = 1;
  } finally {
    if (browser) await browser.close();
    await stopAll();
    await receiver.close();
    if (!process.exitCode) fs.rmSync(dir, {recursive: true, force: true});
  }
}

await main();
