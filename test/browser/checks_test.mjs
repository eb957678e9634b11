// The page checks of lib/page_checks.mjs on pages made to pass and to fail each of them, in
// Debian's chromium through playwright-core: a check that could never fail would pass any page.
// No quell needed; scripts/fresh-check --cheap runs it too, to prove node, playwright-core and
// chromium work together on a bare Debian 12.
import assert from 'node:assert/strict';

import {chromium} from 'playwright-core';

import {contrastFailures, scrollWidth, unnamedControls} from './lib/page_checks.mjs';

const CHROMIUM = process.env.QUELL_CHROMIUM || '/usr/bin/chromium';

const good = `<!doctype html><html lang="en"><body style="color:#1b1f24;background:#fff">
  <h1>Fine</h1><p>Body text</p>
  <label for="q">Search</label><input id="q">
  <select aria-label="Status"><option>all</option></select>
  <button style="color:#fff;background:#0b57d0">Acknowledge</button>
  <div style="position:relative;background:#b42318;width:20px;height:20px">
    <span style="position:absolute;top:30px;color:#1b1f24">open</span></div>
  <a href="/x">Outbox</a><button disabled style="color:#999">Next page</button>
  <div style="overflow-x:auto;max-width:100%"><table><tr><td style="white-space:nowrap">
    ${'wide '.repeat(80)}</td></tr></table></div></body></html>`;

const bad = `<!doctype html><html lang="en"><body style="color:#1b1f24;background:#fff">
  <p style="color:#aaa">faint text</p>
  <input id="q"><button></button>
  <button style="color:#fff;background:#7fb0ff">Resolve</button>
  <div style="width:600px">too wide</div></body></html>`;

async function main() {
  const browser = await chromium.launch({executablePath: CHROMIUM, args: ['--no-sandbox']});
  try {
    const page = await browser.newPage({viewport: {width: 360, height: 640}});

    await page.setContent(good);
    const names = await unnamedControls(page);
    assert.deepEqual(names.bad, []);
    assert.ok(names.controls >= 5, JSON.stringify(names));
    const contrast = await contrastFailures(page);
    assert.deepEqual(contrast.failures, []);
    assert.ok(contrast.checked >= 6, JSON.stringify(contrast));
    assert.ok(await scrollWidth(page) <= 360, 'a table scrolling in its own box is no page scroll');

    await page.setContent(bad);
    const badNames = await unnamedControls(page);
    assert.equal(badNames.bad.length, 2, JSON.stringify(badNames));
    assert.ok(badNames.bad.some((b) => b.includes('<input')), JSON.stringify(badNames));
    const badContrast = await contrastFailures(page);
    assert.equal(badContrast.failures.length, 2, JSON.stringify(badContrast));
    assert.ok(badContrast.failures.some((f) => f.includes('faint text')));
    assert.ok(badContrast.failures.some((f) => f.includes('Resolve')));
    assert.ok(await scrollWidth(page) > 360);
    console.log(`page checks: passed (chromium ${browser.version()}, node ${process.version})`);
  } finally {
    await browser.close();
  }
}

await main();
