// / : the incident list, filtered, ordered and paged by the store (GET /v1/incidents).

import {NeedToken, read} from './api.js';
import {emptyRow, field, h, incidentHref, main, say, statusBadge, table} from './dom.js';
import {REFRESH_MS, every} from './refresh.js';
import {formatDuration, parseTime} from './time.js';

const PAGE_SIZE = 50;
const HEADERS = ['Key', 'Condition', 'Labels', 'Severity', 'Status', 'Open for',
  'Upstream events', 'Notifications sent', 'Healthy streak', 'Acked by'];

function openFor(inc) {
  const opened = parseTime(inc.opened_at);
  if (opened === null) return '—';
  const end = inc.status === 'open' ? Date.now() : parseTime(inc.resolved_at) || Date.now();
  return formatDuration(end - opened);
}

function incidentRow(inc) {
  const upstream = inc.upstream_count ?? inc.event_count;
  return h('tr', {'data-key': inc.key, 'data-status': inc.status},
    h('td', {class: 'key'}, h('a', {href: incidentHref(inc.key)}, inc.key)),
    h('td', {}, inc.condition),
    h('td', {class: 'labels'}, Object.entries(inc.labels || {}).map(([k, v], i) =>
      [i ? ', ' : '', h('span', {class: 'label'}, k + '=' + v)])),
    h('td', {}, inc.severity || '—'),
    h('td', {}, statusBadge(inc.status)),
    h('td', {class: 'num'}, openFor(inc)),
    h('td', {class: 'num'}, upstream ?? '—'),
    h('td', {class: 'num'}, inc.notifications_sent ?? '—'),
    h('td', {class: 'num'}, inc.healthy_streak ?? '—'),
    h('td', {class: 'acked-by'}, inc.acked_by || ''));
}

async function fetchIncidents(f) {
  const q = new URLSearchParams({order: 'triage', limit: PAGE_SIZE, offset: f.offset});
  if (f.q) q.set('q', f.q);
  if (f.label) q.set('label', f.label);
  if (f.condition) q.set('condition', f.condition);
  if (f.status !== 'all') q.set('status', f.status);
  const data = await read('/v1/incidents?' + q);
  return {list: data.incidents || [], total: data.total};
}

export async function incidentsPage(ctx) {
  const params = new URLSearchParams(location.search);
  const f = {q: params.get('q') || '', condition: params.get('condition') || '',
    label: params.get('label') || '', status: params.get('status') || 'all',
    offset: Math.max(0, parseInt(params.get('offset') || '0', 10) || 0)};
  if (!['all', 'open', 'resolved'].includes(f.status)) f.status = 'all';

  const input = (id, name, value, extra) => h('input', Object.assign({id, name, value,
    type: 'search', autocomplete: 'off'}, extra));
  const search = input('f-q', 'q', f.q, {});
  // The condition filter is an exact name: offer the names seen so far.
  const condition = input('f-condition', 'condition', f.condition, {list: 'f-conditions'});
  const conditions = h('datalist', {id: 'f-conditions'});
  const seen = new Set();
  const label = input('f-label', 'label', f.label, {'aria-describedby': 'f-label-hint'});
  const status = h('select', {id: 'f-status', name: 'status'},
    ['all', 'open', 'resolved'].map((s) => h('option', {value: s, selected: s === f.status}, s)));
  const summary = h('p', {id: 'list-summary', class: 'summary'});
  const prev = h('button', {type: 'button', disabled: true}, 'Previous page');
  const next = h('button', {type: 'button', disabled: true}, 'Next page');
  const wrap = table('incidents', 'Incidents, open first', HEADERS, []);
  const tbl = wrap.querySelector('table');

  main.append(h('h1', {tabindex: -1}, 'Incidents'),
    h('form', {class: 'filters', role: 'search', 'aria-label': 'Filter incidents',
      onsubmit: (e) => e.preventDefault()},
    field('f-q', 'Search', search), field('f-condition', 'Condition', condition), conditions,
    field('f-label', 'Label', label, 'name=value'), field('f-status', 'Status', status)),
    h('div', {class: 'pager'}, summary, prev, next), wrap);

  let asked = 0; // only the newest question's answer is drawn (a filter may outrun a refresh)
  async function refresh() {
    const mine = ++asked;
    const {list, total} = await fetchIncidents({...f});
    if (!ctx.alive() || mine !== asked) return;
    // The focused link survives the redraw: a keyboard user keeps their place.
    const focused = document.activeElement && tbl.contains(document.activeElement)
      ? document.activeElement.closest('tr')?.dataset.key : null;
    const tbody = tbl.tBodies[0];
    tbody.replaceChildren(...(list.length ? list.map(incidentRow)
      : [emptyRow(HEADERS.length, 'No incidents match.')]));
    if (focused !== null && focused !== undefined) {
      for (const tr of tbody.rows) if (tr.dataset.key === focused) tr.querySelector('a')?.focus();
    }
    tbl.dataset.refreshedAt = new Date().toISOString();
    for (const inc of list) {
      if (seen.has(inc.condition)) continue;
      seen.add(inc.condition);
      conditions.append(h('option', {value: inc.condition}));
    }
    const first = list.length ? f.offset + 1 : 0;
    const last = f.offset + list.length;
    summary.textContent = `${first}–${last} of ${total}`;
    prev.disabled = f.offset === 0;
    next.disabled = last >= total;
  }

  function update(resetOffset) {
    if (resetOffset) f.offset = 0;
    const q = new URLSearchParams();
    for (const k of ['q', 'condition', 'label']) if (f[k]) q.set(k, f[k]);
    if (f.status !== 'all') q.set('status', f.status);
    if (f.offset) q.set('offset', f.offset);
    history.replaceState(null, '', '/' + (q.toString() ? '?' + q : ''));
    refresh().catch(fail);
  }
  function fail(e) {
    if (!(e instanceof NeedToken) && ctx.alive()) say('Could not refresh the list: ' + e.message);
  }
  let debounce = null;
  for (const [el, key] of [[search, 'q'], [condition, 'condition'], [label, 'label']]) {
    el.addEventListener('input', () => {
      f[key] = el.value.trim();
      clearTimeout(debounce);
      debounce = setTimeout(() => update(true), 250);
    });
  }
  status.addEventListener('change', () => { f.status = status.value; update(true); });
  prev.addEventListener('click', () => { f.offset = Math.max(0, f.offset - PAGE_SIZE); update(); });
  next.addEventListener('click', () => { f.offset += PAGE_SIZE; update(); });

  await refresh();
  if (ctx.alive()) every(REFRESH_MS, () => refresh().catch(fail));
}
