// A pushed, grouped incident's page in a real browser (issue 31): `quell run` with one push
// condition whose webhook channel groups by condition, fed an Alertmanager webhook body over
// HTTP, delivering to a loopback receiver. The page must show the alert's severity (a label),
// its summary, description and runbook link, the sends its group message made, and link the
// member row (status grouped) to the group message that carried it.
//
// Environment (set by the ctest entry, test/browser/CMakeLists.txt): QUELL_BINARY,
// QUELL_ARTIFACTS (screenshots go there), optional QUELL_CHROMIUM.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import {chromium} from 'playwright-core';

import {contrastFailures, scrollWidth, unnamedControls} from './lib/page_checks.mjs';
import {logTail, startQuell, stopAll, waitFor} from './lib/processes.mjs';
import {startReceiver} from './lib/receiver.mjs';

const QUELL = process.env.QUELL_BINARY;
const ARTIFACTS = process.env.QUELL_ARTIFACTS || path.join(os.tmpdir(), 'quell-page-artifacts');
const CHROMIUM = process.env.QUELL_CHROMIUM || '/usr/bin/chromium';
const TOKEN = 'tok-browser-push-2f9d51c07ae3b684';
const KEY = 'acme:DiskFull';
const RUNBOOK = 'https://runbooks.example.test/disk-full?host=db-1&mount=/var';
const enc = encodeURIComponent;

function writeConfig(file, {db, receiverUrl}) {
  fs.writeFileSync(file, `store: sqlite:${db}
conditions:
  - name: prom-alerts
    type: push
    key: "{labels.tenant}:{labels.alertname}"
    stale_after: 15m
    healthy_polls_to_close: 1
    interval: 1s
    channels: [ops-hook]
channels:
  - name: ops-hook
    type: webhook
    url: "${receiverUrl}"
    signing: off
    group_by: [condition]
    group_wait: 1s
    initial_backoff: 200ms
    max_backoff: 1s
dispatch: {lease: 2s, idle_interval: 100ms}
log: {format: json, level: info}
http:
  listen: "127.0.0.1:0"
  public_url: http://quell.example.test
  token_env: QUELL_TOKEN
  token_name: alertmanager
  open_reads: true
`);
}

// Alertmanager's webhook body (version 4) for `alerts` ([labels, annotations] pairs).
function alertmanagerBody(alerts) {
  return {version: '4', receiver: 'quell', status: 'firing', groupKey: '{}:{}',
    truncatedAlerts: 0, groupLabels: {}, commonLabels: {}, commonAnnotations: {},
    externalURL: 'http://alertmanager:9093',
    alerts: alerts.map(([labels, annotations]) => ({status: 'firing', labels, annotations,
      startsAt: '2026-12-02T08:55:00.123Z', endsAt: '0001-01-01T00:00:00Z',
      generatorURL: 'http://prometheus:9090/graph?g0.expr=up', fingerprint: 'c6eadffa33fcdf37'}))};
}

async function api(base, method, route, body) {
  const res = await fetch(base + route, {method, headers: {Authorization: `Bearer ${TOKEN}`,
    'Content-Type': 'application/json'}, body: body === undefined ? undefined : JSON.stringify(body)});
  const text = await res.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* kept as text */ }
  return {status: res.status, json, text};
}

const step = async (what, fn) => {
  const t0 = Date.now();
  await fn();
  console.log(`ok  ${what} (${Date.now() - t0} ms)`);
};

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quell-browser-push-'));
  const receiver = await startReceiver();
  const config = path.join(dir, 'push.yaml');
  writeConfig(config, {db: path.join(dir, 'quell.db'), receiverUrl: receiver.url});
  const problems = [];
  let browser;
  let page;
  let quell;
  try {
    quell = await startQuell(QUELL, config, {QUELL_TOKEN: TOKEN}, dir, 'quell-push');
    const base = quell.base;
    let groupIk = '';

    await step('a push missing a key label is a 400 naming it, and nothing is applied', async () => {
      const r = await api(base, 'POST', '/v1/inputs/alertmanager',
        alertmanagerBody([[{alertname: 'Up', severity: 'critical'}, {}]]));
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json.error.message, 'alerts[0].labels.tenant: missing, the key template ' +
        '"{labels.tenant}:{labels.alertname}" needs it');
      assert.equal((await api(base, 'GET', '/v1/incidents')).json.total, 0);
    });

    await step('two alerts pushed: one group message delivered for both', async () => {
      const r = await api(base, 'POST', '/v1/inputs/alertmanager', alertmanagerBody([
        [{alertname: 'DiskFull', severity: 'warning', tenant: 'acme'},
          {summary: 'Disk /var on db-1 is 97% full',
            description: 'Only 1.2 GiB left on /var of db-1.', runbook_url: RUNBOOK}],
        [{alertname: 'HighLatency', severity: 'critical', tenant: 'acme'},
          {summary: 'p99 latency above 2s'}]]));
      assert.equal(r.status, 200, r.text);
      const sent = await waitFor('the group message to be delivered', () => receiver.requests
        .find((q) => (q.key || '').startsWith('{group}:') && q.status === 200), 20000);
      groupIk = sent.idempotency_key;
      const {json} = await api(base, 'GET', `/v1/incidents/${enc(KEY)}`);
      assert.equal(json.incident.severity, 'warning');
      assert.equal(json.incident.notifications_sent, 1);
      assert.equal(json.outbox[0].status, 'grouped');
      assert.equal(json.outbox[0].group_row, groupIk);
      assert.equal(json.group_messages[0].idempotency_key, groupIk);
      assert.equal(json.group_messages[0].status, 'sent');
    });

    browser = await chromium.launch({executablePath: CHROMIUM, args: ['--no-sandbox']});
    const context = await browser.newContext({viewport: {width: 1280, height: 900}});
    page = await context.newPage();
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) {
        problems.push(`CSP: ${m.text()}`);
      }
    });

    await step('the incident page: severity, the alert as people read it, the sends', async () => {
      await page.goto(`${base}/incidents/${enc(KEY)}`);
      await page.locator('#severity').waitFor();
      assert.equal(await page.locator('#severity').innerText(), 'warning');
      assert.equal(await page.locator('#notifications-sent').innerText(), '1');
      assert.equal(await page.locator('#alert-summary').innerText(),
        'Disk /var on db-1 is 97% full');
      assert.equal(await page.locator('#alert-description').innerText(),
        'Only 1.2 GiB left on /var of db-1.');
      assert.equal(await page.locator('#alert-runbook a').getAttribute('href'), RUNBOOK);
      assert.match(await page.locator('#alert-since time').getAttribute('datetime'),
        /^2026-12-02T08:55:00/);
      // The evidence shows the annotations one by one, not as JSON.
      const evidence = await page.locator('#evidence').innerText();
      assert.ok(!evidence.includes('{"summary"'), evidence);
      assert.equal(await page.locator(`#evidence a[href="${RUNBOOK}"]`).count(), 1);
    });

    await step('the member row links to the group message that went', async () => {
      const row = page.locator(`#messages-table tr[data-status="grouped"]`);
      assert.equal(await row.count(), 1);
      const link = row.locator('a.group-link');
      assert.equal(await link.innerText(), 'sent in a group message');
      assert.equal(await link.getAttribute('href'), `#gm-${groupIk}`);
      const target = page.locator(`#group-messages-table tr[data-idempotency-key="${groupIk}"]`);
      assert.equal(await target.getAttribute('data-status'), 'sent');
      const url = page.url();
      await link.click();
      await waitFor('the group message row to take the focus', () => page.evaluate(
        () => document.activeElement?.id), 5000).then((id) => assert.equal(id, `gm-${groupIk}`));
      assert.equal(page.url(), url); // moved within the page, no navigation or redraw
      assert.ok((await target.innerText()).includes('{group}:') === false);
      assert.ok((await target.innerText()).includes('condition=prom-alerts'));
      assert.match(await target.locator('a.group-page').getAttribute('href'),
        /^\/groups\/[^/]+\/condition%3Dprom-alerts$/);
    });

    await step('the page: names, contrast, 360 px', async () => {
      const names = await unnamedControls(page);
      assert.deepEqual(names.bad, [], 'controls without an accessible name');
      const contrast = await contrastFailures(page);
      assert.deepEqual(contrast.failures, [], 'contrast below WCAG AA');
      fs.mkdirSync(ARTIFACTS, {recursive: true});
      await page.screenshot({path: path.join(ARTIFACTS, 'incident-pushed.png'), fullPage: true});
      await page.setViewportSize({width: 360, height: 780});
      // The page has the new width (reading scrollWidth then lays it out anew).
      await page.waitForFunction(() => window.innerWidth === 360);
      const width = await scrollWidth(page);
      assert.ok(width <= 360, `scrollWidth ${width} > 360 at 360 px wide`);
    });

    assert.deepEqual(problems, [], 'script errors or CSP refusals in the page');
    console.log('browser push test: passed');
  } catch (e) {
    if (page) {
      try {
        fs.mkdirSync(ARTIFACTS, {recursive: true});
        await page.screenshot({path: path.join(ARTIFACTS, 'push-failure.png'), fullPage: true});
      } catch { /* the page may be gone */ }
    }
    console.error(`browser push test: FAILED: ${e.stack || e}`);
    if (problems.length) console.error(problems.join('\n'));
    if (quell) console.error(`--- log (tail):\n${logTail(quell.proc)}`);
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
