// Links from messages open the page directly (issue 31): a chat client's page on another site
// holds the links quell's messages carried (an incident's, and a group message's Details link);
// one login with the token (traded for an HttpOnly, SameSite=Strict session cookie) and both
// open, the incident's page and the group's, with no token box and no token in tab storage.
// Logging out brings the token box back. Debian's chromium, driven by playwright-core, against
// `quell run` on quell-sim, a real SQLite file and a loopback receiver keeping every message.
//
// Environment (set by the ctest entry, test/browser/CMakeLists.txt): QUELL_BINARY,
// QUELL_SIM_BINARY, QUELL_ARTIFACTS (screenshots go there), optional QUELL_CHROMIUM.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

import {chromium} from 'playwright-core';

import {logTail, startQuell, startSim, stopAll, waitFor} from './lib/processes.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const QUELL = process.env.QUELL_BINARY;
const SIM = process.env.QUELL_SIM_BINARY;
const ARTIFACTS = process.env.QUELL_ARTIFACTS || path.join(here, 'artifacts');
const CHROMIUM = process.env.QUELL_CHROMIUM || '/usr/bin/chromium';
const TOKEN = 'tok-browser-links-58e2a0c9d1f4';

// A port free now, for quell's listener: its public URL must name it before it starts.
async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const {port} = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// The receiver of both channels, keeping each message's body; it also serves /chat, a page of
// the links the messages carried, as a chat client shows them, on its own site (localhost).
async function startChat() {
  const messages = [];
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/chat') {
      const links = [];
      for (const m of messages) {
        for (const url of (m.message?.body || '').match(/https?:\/\/\S+/g) || []) {
          if (!links.includes(url)) links.push(url);
        }
      }
      res.writeHead(200, {'Content-Type': 'text/html; charset=utf-8'});
      res.end('<!doctype html><title>chat</title><ul>' +
        links.map((u) => `<li><a href="${u}">${u}</a></li>`).join('') + '</ul>');
      return;
    }
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => {
      try { messages.push(JSON.parse(body)); } catch { /* not a message */ }
      res.writeHead(200, {'Content-Type': 'application/json'});
      res.end('{"id":"chat-' + messages.length + '"}');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const {port} = server.address();
  return {messages, port, url: `http://127.0.0.1:${port}`,
    page: `http://localhost:${port}/chat`, // another site than 127.0.0.1
    close: () => new Promise((resolve) => server.close(resolve))};
}

function writeConfig(file, {db, chat, port}) {
  fs.writeFileSync(file, `store: sqlite:${db}
infrai:
  base_url: \${INFRAI_BASE_URL}
  retry: {max_attempts: 1}
defaults: {cooldown: 1h, channels: [team, chat]}
conditions:
  - {name: checkout, type: error_groups, interval: 1s}
channels:
  - name: team
    type: webhook
    url: "${chat.url}/team"
    signing: off
    group_by: [condition]
    group_wait: 1s
    group_interval: 1m
  - name: chat
    type: webhook
    url: "${chat.url}/chat-hook"
    signing: off
dispatch: {lease: 2s, idle_interval: 100ms}
log: {format: json, level: info}
http:
  listen: "127.0.0.1:${port}"
  public_url: http://127.0.0.1:${port}
  token_env: QUELL_TOKEN
  token_name: oncall-links
`);
}

const step = async (what, fn) => {
  const t0 = Date.now();
  await fn();
  console.log(`ok  ${what} (${Date.now() - t0} ms)`);
};

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quell-browser-links-'));
  fs.rmSync(ARTIFACTS, {recursive: true, force: true});
  fs.mkdirSync(ARTIFACTS, {recursive: true});
  const scenario = path.join(dir, 'scenario.json');
  fs.writeFileSync(scenario, JSON.stringify({groups: [
    {id: 'grp_pay', title: 'Payment failed', tags: {tenant: 'acme'}, events: 2},
    {id: 'grp_ship', title: 'Shipping quote failed', tags: {tenant: 'acme'}, events: 1}]}));
  const chat = await startChat();
  const sim = await startSim(SIM, scenario, dir);
  const port = await freePort();
  const config = path.join(dir, 'quell.yaml');
  writeConfig(config, {db: path.join(dir, 'quell.db'), chat, port});
  const problems = [];
  let browser;
  let page;
  let quell;
  try {
    quell = await startQuell(QUELL, config,
      {INFRAI_BASE_URL: sim.url, INFRAI_API_KEY: 'ifr_pk_links_0123456789abcdef',
        QUELL_TOKEN: TOKEN}, dir, 'quell-links');
    const base = `http://127.0.0.1:${port}`;
    assert.equal(quell.base, base);
    let incidentLink = '';
    let groupLink = '';
    let key = '';

    await step('the messages carry the incident\'s link and the group\'s page', async () => {
      await waitFor('a group message and an incident\'s message', () => {
        const group = chat.messages.find((m) => m.kind === 'group');
        const single = chat.messages.find((m) => m.kind !== 'group' && m.transition === 'open');
        if (!group || !single) return false;
        // The page's links, not the API's (/v1/...) that the next step names.
        const find = (text, route) => {
          const at = text.indexOf(base + route);
          return at < 0 ? '' : text.slice(at).split(/\s/)[0].replace(/[.)]+$/, '');
        };
        groupLink = find(group.message.body, '/groups/');
        incidentLink = find(single.message.body, '/incidents/');
        key = single.key;
        return groupLink && incidentLink;
      }, 30000);
      assert.equal(groupLink, `${base}/groups/team/condition%3Dcheckout`);
      assert.equal(incidentLink, `${base}/incidents/${encodeURIComponent(key)}`);
    });

    browser = await chromium.launch({executablePath: CHROMIUM, args: ['--no-sandbox']});
    const context = await browser.newContext({viewport: {width: 1280, height: 900}});
    page = await context.newPage();
    page.on('pageerror', (e) => problems.push(`page error on ${page.url()}: ${e.message}`));

    await step('from the chat, the incident\'s link asks for the token once', async () => {
      await page.goto(chat.page);
      await page.locator(`a[href="${incidentLink}"]`).click();
      await page.waitForURL(incidentLink);
      await page.locator('#token-form').waitFor();
      await page.getByLabel('API token').fill(TOKEN);
      await page.getByRole('button', {name: 'Log in'}).click();
      await page.locator('#timeline li').first().waitFor();
      assert.ok((await page.locator('h1').innerText()).includes(key));
      await page.getByRole('button', {name: 'Log out'}).waitFor();
    });

    await step('the session is an HttpOnly, SameSite=Strict cookie; no token in the tab',
      async () => {
        const cookies = await context.cookies(base);
        assert.equal(cookies.length, 1, JSON.stringify(cookies));
        const [cookie] = cookies;
        assert.equal(cookie.name, 'quell_session');
        assert.equal(cookie.httpOnly, true);
        assert.equal(cookie.sameSite, 'Strict');
        assert.equal(cookie.path, '/');
        assert.equal(cookie.secure, false); // public_url is http here
        assert.ok(!cookie.value.includes(TOKEN));
        const stored = await page.evaluate(() => JSON.stringify([sessionStorage, localStorage]));
        assert.ok(!stored.includes(TOKEN), stored);
        assert.equal(await page.evaluate(() => document.cookie), '', 'the script cannot read it');
      });

    await step('from the chat again, the group\'s link opens its page directly', async () => {
      await page.goto(chat.page);
      await page.locator(`a[href="${groupLink}"]`).click();
      await page.waitForURL(groupLink);
      await page.locator('#group-members-table tr[data-key]').first().waitFor();
      assert.equal(await page.locator('#token-form').count(), 0);
      assert.equal(await page.locator('#group-key').innerText(), 'condition=checkout');
      assert.equal(await page.locator('#group-channel').innerText(), 'team');
      const keys = await page.$$eval('#group-members-table tr[data-key]',
        (rows) => rows.map((r) => r.dataset.key));
      assert.equal(keys.length, 2, keys.join(' '));
      assert.ok(keys.includes(key), keys.join(' '));
      assert.equal(await page.locator('#group-open').innerText(), '2');
      assert.ok(await page.locator('#group-messages-table tr[data-idempotency-key]').count() >= 1);
      await page.screenshot({path: path.join(ARTIFACTS, 'group.png'), fullPage: true});
      // A member's row leads to its incident's page.
      await page.locator(`#group-members-table tr[data-key="${key}"] a`).click();
      await page.waitForURL(incidentLink);
      await page.locator('#timeline li').first().waitFor();
    });

    await step('a new tab of the same browser opens the incident\'s link directly', async () => {
      const other = await context.newPage();
      await other.goto(chat.page);
      await other.locator(`a[href="${incidentLink}"]`).click();
      await other.locator('#timeline li').first().waitFor();
      assert.equal(await other.locator('#token-form').count(), 0);
      await other.close();
    });

    await step('Acknowledge from the page goes through with the cookie', async () => {
      await page.getByRole('button', {name: 'Acknowledge'}).click();
      await waitFor('#acked-by to name the token', async () =>
        (await page.locator('#acked-by').innerText()).includes('oncall-links'), 10000);
    });

    await step('Log out: the next link asks for the token again', async () => {
      await page.getByRole('button', {name: 'Log out'}).click();
      await waitFor('the session cookie to go', async () =>
        (await context.cookies(base)).length === 0, 5000);
      await page.goto(chat.page);
      await page.locator(`a[href="${groupLink}"]`).click();
      await page.locator('#token-form').waitFor();
      assert.equal(await page.locator('#group-members-table tr[data-key]').count(), 0);
    });

    assert.deepEqual(problems, [], 'script errors in the page');
    console.log('browser message links test: passed');
  } catch (e) {
    if (page) {
      try {
        await page.screenshot({path: path.join(ARTIFACTS, 'failure.png'), fullPage: true});
      } catch { /* the page may be gone */ }
    }
    console.error(`browser message links test: FAILED: ${e.stack || e}`);
    if (problems.length) console.error(problems.join('\n'));
    if (quell) console.error(`--- ${quell.proc.name} log (tail):\n${logTail(quell.proc)}`);
    console.error(`messages: ${JSON.stringify(chat.messages.map((m) => m.message?.body))}`);
    process.exitCode = 1;
  } finally {
    if (browser) await browser.close();
    await stopAll();
    await chat.close();
    if (!process.exitCode) fs.rmSync(dir, {recursive: true, force: true});
  }
}

await main();
