// Silences from the page in a real browser (Debian's chromium, driven by playwright-core),
// against `quell run` on a real SQLite file with a push condition and a loopback webhook
// receiver. Keys are outsiders' text: an alert pushed with tenant and alertname `*` gets the
// key `*:*`. "Silence this incident" on its page must silence that key only, not every key the
// text would match as a glob; and the silences form, given a glob, shows the open incidents it
// matches before anything is saved.
//
// Environment (set by the ctest entry, test/browser/CMakeLists.txt): QUELL_BINARY,
// QUELL_ARTIFACTS (screenshots go there), optional QUELL_CHROMIUM.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

import {chromium} from 'playwright-core';

import {contrastFailures, unnamedControls} from './lib/page_checks.mjs';
import {logTail, startQuell, stopAll, waitFor} from './lib/processes.mjs';
import {startReceiver} from './lib/receiver.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const QUELL = process.env.QUELL_BINARY;
const ARTIFACTS = process.env.QUELL_ARTIFACTS || path.join(here, 'artifacts');
const CHROMIUM = process.env.QUELL_CHROMIUM || '/usr/bin/chromium';

const TOKEN = 'tok-browser-silence-4be1d07a93c2';
const STAR = '*:*';
const ACME = 'acme:DiskFull';
const GLOBEX = 'globex:CPUHigh';
const enc = encodeURIComponent;

async function api(base, method, route, body) {
  const headers = {Accept: 'application/json', Authorization: `Bearer ${TOKEN}`};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(base + route,
    {method, headers, body: body === undefined ? undefined : JSON.stringify(body)});
  const text = await res.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* kept as text */ }
  return {status: res.status, json, text};
}

function alert(tenant, alertname, status = 'firing') {
  return {status, labels: {tenant, alertname}, annotations: {summary: `${alertname} on ${tenant}`},
    startsAt: new Date(Date.now() - 60000).toISOString(), endsAt: '0001-01-01T00:00:00Z',
    fingerprint: `${tenant}-${alertname}`};
}

// Resolves `key` by hand through the API; the statuses of the resolve's outbox rows.
async function resolveStatuses(base, key) {
  const r = await api(base, 'POST', `/v1/incidents/${enc(key)}/resolve`, {});
  assert.equal(r.status, 200, `resolve ${key}: ${r.text}`);
  assert.ok(r.json.outbox.length > 0, `resolve ${key} wrote no row: ${r.text}`);
  return r.json.outbox.map((row) => row.status);
}

async function silences(base) {
  const r = await api(base, 'GET', '/v1/silences');
  assert.equal(r.status, 200, r.text);
  return r.json.silences;
}

function writeConfig(file, {db, receiverUrl}) {
  fs.writeFileSync(file, `store: sqlite:${db}
defaults: {cooldown: 1h, channels: [ops-webhook]}
conditions:
  - name: pushed
    type: push
    key: "{labels.tenant}:{labels.alertname}"
    stale_after: 15m
    healthy_polls_to_close: 1
    interval: 1m
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
  token_env: QUELL_TOKEN
  token_name: oncall-ana
`);
}

const problems = [];
const step = async (what, fn) => {
  const t0 = Date.now();
  await fn();
  console.log(`ok  ${what} (${Date.now() - t0} ms)`);
};

async function shot(page, name) {
  fs.mkdirSync(ARTIFACTS, {recursive: true});
  await page.screenshot({path: path.join(ARTIFACTS, `${name}.png`), fullPage: true});
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quell-browser-silence-'));
  console.log(`silence test: work dir ${dir}, screenshots in ${ARTIFACTS}`);
  const receiver = await startReceiver();
  const db = path.join(dir, 'quell.db');
  const config = path.join(dir, 'quell.yaml');
  writeConfig(config, {db, receiverUrl: receiver.url});
  let browser;
  let page;
  let quell;
  try {
    quell = await startQuell(QUELL, config, {QUELL_TOKEN: TOKEN}, dir, 'quell-silence');
    const base = quell.base;

    await step('three pushed alerts open three incidents, one of them keyed *:*', async () => {
      const r = await api(base, 'POST', '/v1/inputs/alertmanager',
        {version: '4', status: 'firing', receiver: 'quell', groupKey: '{}:{}',
          alerts: [alert('*', '*'), alert('acme', 'DiskFull'), alert('globex', 'CPUHigh')]});
      assert.equal(r.status, 200, r.text);
      const open = await api(base, 'GET', '/v1/incidents?status=open');
      assert.deepEqual(open.json.incidents.map((i) => i.key).sort(), [STAR, ACME, GLOBEX].sort());
      // The opens delivered, so a resolve goes to the channel that got the open.
      await waitFor('the three opens delivered', () => [STAR, ACME, GLOBEX].every((k) =>
        receiver.requests.some((q) => q.key === k && q.transition === 'open' && q.status === 200)),
      30000);
    });

    browser = await chromium.launch({executablePath: CHROMIUM, args: ['--no-sandbox']});
    page = await (await browser.newContext({viewport: {width: 1280, height: 900}})).newPage();
    page.on('pageerror', (e) => problems.push(`page error on ${page.url()}: ${e.message}`));

    await step('"Silence this incident" on *:* silences exactly that key', async () => {
      await page.goto(`${base}/incidents/${enc(STAR)}`);
      await page.getByLabel('API token').fill(TOKEN);
      await page.getByRole('button', {name: 'Log in'}).click();
      await page.locator('#facts').waitFor();
      await page.getByLabel('Reason').fill('noisy test alert');
      await page.getByRole('button', {name: 'Silence', exact: true}).click();
      await waitFor('the notice to say it is silenced', async () =>
        /Silenced until/.test(await page.locator('#notice').innerText()), 10000);
      const listed = await silences(base);
      assert.equal(listed.length, 1, JSON.stringify(listed));
      assert.equal(listed[0].match, 'exact');
      assert.equal(listed[0].key, STAR);
      assert.equal(listed[0].pattern, undefined);
    });

    await step('the other incidents are not silenced: their resolves go out', async () => {
      assert.deepEqual(await resolveStatuses(base, ACME), ['pending']);
      assert.deepEqual(await resolveStatuses(base, STAR), ['silenced']);
    });

    await step('the silences form previews a glob and saves nothing until confirmed', async () => {
      await page.goto(`${base}/silences`);
      await page.locator('table#silences tr[data-id]').first().waitFor();
      const row = page.locator('table#silences tr[data-id]').first();
      assert.equal(await row.getAttribute('data-match'), 'exact');
      assert.ok((await row.innerText()).includes(STAR));
      await page.getByLabel('Key or pattern').fill('glob*');
      await page.getByLabel('Reason', {exact: true}).fill('maintenance');
      await page.getByRole('button', {name: 'Add silence'}).click();
      const box = page.locator('#silence-preview');
      await box.waitFor();
      assert.equal(await box.getAttribute('data-matched'), '1');
      assert.deepEqual(await page.locator('#silence-preview-keys li').allInnerTexts(), [GLOBEX]);
      assert.equal((await silences(base)).length, 1, 'the preview saved a silence');
      // An edit takes the preview away: it was for the text before.
      await page.getByLabel('Key or pattern').fill('glob*x');
      assert.equal(await box.count(), 0);
      await page.getByLabel('Key or pattern').fill('glob*');
      await page.getByRole('button', {name: 'Add silence'}).click();
      await box.waitFor();
      const names = await unnamedControls(page);
      assert.deepEqual(names.bad, [], 'controls without an accessible name');
      const contrast = await contrastFailures(page);
      assert.deepEqual(contrast.failures, [], 'contrast below WCAG AA');
      await shot(page, 'silences-preview');
      await page.getByRole('button', {name: 'Save pattern silence'}).click();
      await waitFor('the saved glob in the table', async () =>
        (await page.locator('table#silences tr[data-match="glob"]').count()) === 1, 10000);
      const listed = await silences(base);
      assert.equal(listed.length, 2, JSON.stringify(listed));
      assert.equal(listed[1].match, 'glob');
      assert.equal(listed[1].pattern, 'glob*');
      assert.equal(await box.count(), 0);
      assert.deepEqual(await resolveStatuses(base, GLOBEX), ['silenced']);
    });

    await step('a key without * is saved as that key at once', async () => {
      await page.getByLabel('Key or pattern').fill('acme:Other');
      await page.getByLabel('Reason', {exact: true}).fill('planned');
      await page.getByRole('button', {name: 'Add silence'}).click();
      await waitFor('the third silence', async () => (await silences(base)).length === 3, 10000);
      const listed = await silences(base);
      assert.equal(listed[2].match, 'exact');
      assert.equal(listed[2].key, 'acme:Other');
    });

    assert.deepEqual(problems, [], 'script errors in the page');
    console.log('silence test: passed');
  } catch (e) {
    if (page) {
      try { await shot(page, 'silence-failure'); } catch { /* the page may be gone */ }
    }
    console.error(`silence test: FAILED: ${e.stack || e}`);
    if (problems.length) console.error(`page problems:\n${problems.join('\n')}`);
    if (quell) console.error(`--- ${quell.proc.name} log (tail):\n${logTail(quell.proc)}`);
    process.exitCode = 1;
  } finally {
    if (browser) await browser.close();
    await stopAll();
    await receiver.close();
    if (!process.exitCode) fs.rmSync(dir, {recursive: true, force: true});
  }
}

await main();
