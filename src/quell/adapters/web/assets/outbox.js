// /outbox: the outbox rows by status; a dead row can be retried or dropped.

import {NeedToken, act, read} from './api.js';
import {emptyRow, enc, field, h, incidentHref, main, say, table} from './dom.js';
import {REFRESH_MS, every} from './refresh.js';
import {when} from './time.js';

const STATUSES = ['pending', 'in_flight', 'dead', 'sent', 'shadow', 'muted', 'grouped',
  'superseded', 'folded', 'silenced', 'dropped'];

// A short id from an idempotency key, for the id a row's buttons are described by.
function rowId(s) {
  let n = 0;
  for (const c of s) n = (n * 31 + c.codePointAt(0)) >>> 0;
  return n.toString(36);
}

export async function outboxPage(ctx) {
  const params = new URLSearchParams(location.search);
  let status = STATUSES.includes(params.get('status')) ? params.get('status') : '';
  const select = h('select', {id: 'o-status', name: 'status'},
    h('option', {value: ''}, 'all'),
    STATUSES.map((s) => h('option', {value: s, selected: s === status}, s)));
  const holder = h('div');
  main.append(h('h1', {tabindex: -1}, 'Outbox'),
    h('form', {class: 'filters', 'aria-label': 'Filter the outbox',
      onsubmit: (e) => e.preventDefault()}, field('o-status', 'Status', select)),
    holder);

  // Only the newest read is drawn: a refresh that started before a Retry, a Drop or a filter
  // change may answer after theirs, and would bring back the rows as they were.
  let asked = 0;
  async function refresh() {
    const mine = ++asked;
    const q = new URLSearchParams({limit: 500});
    if (status) q.set('status', status);
    const data = await read('/v1/outbox?' + q);
    if (!ctx.alive() || mine !== asked) return;
    const rows = (data.rows || []).map((r) => {
      const ik = r.idempotency_key;
      const path = '/v1/outbox/dead/' + enc(ik);
      const buttons = r.status !== 'dead' ? null : [
        h('button', {type: 'button', 'aria-describedby': 'ik-' + rowId(ik), onclick: () =>
          act('Retry', 'POST', path + '/retry', undefined, async (d) => {
            say('Retry: ' + ik + ' is ' + d.status + '.');
            await refresh();
          })}, 'Retry'),
        h('button', {type: 'button', class: 'danger', 'aria-describedby': 'ik-' + rowId(ik),
          onclick: () => act('Drop', 'DELETE', path, undefined, async () => {
            say('Dropped ' + ik + '.');
            await refresh();
          })}, 'Drop')];
      return h('tr', {'data-status': r.status, 'data-idempotency-key': ik},
        h('td', {class: 'mono', id: 'ik-' + rowId(ik)}, ik),
        h('td', {class: 'key'}, h('a', {href: incidentHref(r.key)}, r.key)),
        h('td', {}, r.channel), h('td', {}, r.transition), h('td', {class: 'num'}, r.generation),
        h('td', {}, r.status), h('td', {class: 'num'}, r.attempts),
        h('td', {}, when(r.next_attempt_at)), h('td', {class: 'wrap'}, r.last_error || ''),
        h('td', {class: 'buttons'}, buttons));
    });
    // A focused Retry or Drop keeps its focus across the redraw.
    const active = holder.contains(document.activeElement) ? document.activeElement : null;
    const focusKey = active?.closest('tr')?.dataset.idempotencyKey;
    const focusText = active?.textContent;
    holder.replaceChildren(table('outbox', 'Outbox rows', ['Idempotency key', 'Incident',
      'Channel', 'Transition', 'Generation', 'Status', 'Attempts', 'Next attempt', 'Last error',
      'Actions'], rows.length ? rows : [emptyRow(10, 'No rows.')]));
    if (focusKey === undefined) return;
    for (const tr of holder.querySelectorAll('tr[data-idempotency-key]')) {
      if (tr.dataset.idempotencyKey !== focusKey) continue;
      [...tr.querySelectorAll('a, button')].find((e) => e.textContent === focusText)?.focus();
    }
  }
  select.addEventListener('change', () => {
    status = select.value;
    history.replaceState(null, '', '/outbox' + (status ? '?status=' + status : ''));
    refresh().catch((e) => e instanceof NeedToken || say('Could not load: ' + e.message));
  });
  await refresh();
  if (ctx.alive()) every(REFRESH_MS, () => refresh().catch(() => {}));
}
