// /maintenance: the configured windows, the one-off windows of the last day with Expire, and a
// form adding a one-off window.

import {act, read} from './api.js';
import {emptyRow, enc, field, h, labelsText, main, say, section, table} from './dom.js';
import {DURATION, parseTime, toRfc3339, when} from './time.js';

function configuredTable(windows) {
  const rows = windows.map((w) => h('tr', {'data-name': w.name,
    'data-active': String(!!w.active)},
  h('td', {}, w.name), h('td', {class: 'mono'}, w.keys), h('td', {}, labelsText(w.labels)),
  h('td', {}, w.time_zone), h('td', {}, (w.weekdays || []).join(', ')),
  h('td', {}, (w.times || []).join(', ')), h('td', {}, w.active ? 'active' : 'no'),
  h('td', {}, when(w.start)), h('td', {}, when(w.end))));
  return table('maintenance-configured', 'Configured windows',
    ['Name', 'Keys', 'Labels', 'Zone', 'Weekdays', 'Times', 'Active', 'Start', 'End'],
    rows.length ? rows : [emptyRow(9, 'None configured.')]);
}

// `expire(w)` expires a window; only one that has not ended gets the button.
function oneOffTable(windows, expire) {
  const now = Date.now();
  const rows = windows.map((w) => h('tr', {'data-id': w.id, 'data-active': String(!!w.active)},
    h('td', {class: 'num'}, w.id), h('td', {}, w.name || ''), h('td', {class: 'mono'}, w.keys),
    h('td', {}, labelsText(w.labels)), h('td', {}, when(w.starts_at)),
    h('td', {}, when(w.ends_at)), h('td', {class: 'wrap'}, w.reason),
    h('td', {}, w.created_by), h('td', {}, w.active ? 'active' : 'no'),
    h('td', {}, (parseTime(w.ends_at) || 0) > now ? h('button', {type: 'button',
      'aria-label': 'Expire window ' + w.id, onclick: () => expire(w)}, 'Expire') : 'ended')));
  return table('maintenance-one-off', 'One-off windows', ['Id', 'Name', 'Keys', 'Labels',
    'Starts', 'Ends', 'Reason', 'By', 'Active', 'Actions'],
  rows.length ? rows : [emptyRow(10, 'None in the last day.')]);
}

export async function maintenancePage(ctx) {
  const keys = h('input', {id: 'm-keys', name: 'keys', required: true, autocomplete: 'off',
    'aria-describedby': 'm-keys-hint'});
  const starts = h('input', {id: 'm-starts', name: 'starts', autocomplete: 'off',
    placeholder: 'now', 'aria-describedby': 'm-starts-hint'});
  const ends = h('input', {id: 'm-ends', name: 'ends', value: '1h', required: true,
    autocomplete: 'off', 'aria-describedby': 'm-ends-hint'});
  const reason = h('input', {id: 'm-reason', name: 'reason', required: true, autocomplete: 'off'});
  const form = h('form', {class: 'add', 'aria-label': 'Add a one-off window'},
    field('m-keys', 'Keys', keys, 'a key glob, e.g. acme:*'),
    field('m-starts', 'Starts', starts, 'empty: now; or 2026-12-04T18:00 (your time)'),
    field('m-ends', 'Ends', ends, 'a time, or a duration from the start: 2h'),
    field('m-reason', 'Reason', reason),
    h('button', {type: 'submit'}, 'Add window'));
  const configured = h('div');
  const oneOff = h('div');
  main.append(h('h1', {tabindex: -1}, 'Maintenance'),
    section('configured', 'Configured windows', configured),
    section('one-off', 'One-off windows', form, oneOff));

  const expire = (w) => act('Expire', 'POST', '/v1/maintenance/' + enc(w.id) + '/expire',
    undefined, async () => {
      say('Window ' + w.id + ' expired.');
      await refresh();
    });
  async function refresh() {
    const data = await read('/v1/maintenance');
    if (!ctx.alive()) return;
    configured.replaceChildren(configuredTable(data.windows || []));
    oneOff.replaceChildren(oneOffTable(data.one_off || [], expire));
  }
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const body = {keys: keys.value.trim(), reason: reason.value.trim()};
    if (starts.value.trim()) {
      body.starts_at = toRfc3339(starts.value.trim());
      if (!body.starts_at) { say('Starts: not a time.'); starts.focus(); return; }
    }
    const end = ends.value.trim();
    if (DURATION.test(end)) {
      body.for = end;
    } else {
      body.ends_at = toRfc3339(end);
      if (!body.ends_at) { say('Ends: not a time or a duration.'); ends.focus(); return; }
    }
    act('Add window', 'POST', '/v1/maintenance', body, async (data) => {
      say('Window ' + (data.window?.id ?? '') + ' added.');
      keys.value = '';
      reason.value = '';
      await refresh();
    });
  });
  await refresh();
}
