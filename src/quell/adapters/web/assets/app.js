// quell's operator page: one script, no framework. It reads the path, fetches quell's JSON API
// (docs/http.md) and draws the page; links inside the page change the path with pushState.
// The API token lives in sessionStorage["quell.token"] and goes out only as a bearer header.

const TOKEN_KEY = 'quell.token';
const REFRESH_MS = 5000;
const PAGE_SIZE = 50;

const main = document.getElementById('main');
const notice = document.getElementById('notice');
const tokenArea = document.getElementById('token-area');

let view = 0; // bumped by each render: an answer for an older view is dropped
let timer = null; // the live refresh of the view on screen
let pendingAction = null; // an action waiting for the token form

// ---- small helpers -------------------------------------------------------------------------

// h('td', {class: 'x', 'data-key': k}, 'text', node, [more]): an element. `on*` are listeners.
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else if (name === 'class') el.className = value;
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

function say(text) {
  // Emptied first so the same message twice is announced twice.
  notice.textContent = '';
  setTimeout(() => { notice.textContent = text; }, 20);
}

const enc = encodeURIComponent;
const incidentHref = (key) => '/incidents/' + enc(key);

function parseTime(s) {
  const t = s ? Date.parse(s) : NaN;
  return Number.isNaN(t) ? null : t;
}

function formatDuration(ms) {
  let s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return s + 's';
  const d = Math.floor(s / 86400); s -= d * 86400;
  const hrs = Math.floor(s / 3600); s -= hrs * 3600;
  const m = Math.floor(s / 60);
  if (d > 0) return d + 'd ' + hrs + 'h';
  if (hrs > 0) return hrs + 'h ' + m + 'm';
  return m + 'm ' + (s - m * 60) + 's';
}

// A <time> saying how long ago (or until), with the exact UTC time as its title.
function when(iso) {
  const t = parseTime(iso);
  if (t === null) return '—';
  const diff = Date.now() - t;
  const text = Math.abs(diff) < 1500 ? 'now'
    : diff > 0 ? formatDuration(diff) + ' ago' : 'in ' + formatDuration(-diff);
  return h('time', {datetime: iso, title: iso}, text);
}

function labelsText(labels) {
  return Object.entries(labels || {}).map(([k, v]) => k + '=' + v).join(', ');
}

function table(id, caption, headers, rows) {
  return h('div', {class: 'table-wrap', role: 'region', 'aria-label': caption, tabindex: 0},
    h('table', {id},
      h('caption', {class: 'visually-hidden'}, caption),
      h('thead', {}, h('tr', {}, headers.map((t) => h('th', {scope: 'col'}, t)))),
      h('tbody', {}, rows)));
}

function emptyRow(span, text) {
  return h('tr', {class: 'empty'}, h('td', {colspan: span}, text));
}

function section(id, title, ...children) {
  return h('section', {id, 'aria-labelledby': id + '-h'}, h('h2', {id: id + '-h'}, title),
    children);
}

function field(id, label, input, hint) {
  // The hint between label and control keeps the controls of a row on one line.
  return h('div', {class: 'field'}, h('label', {for: id}, label),
    hint ? h('span', {class: 'hint', id: id + '-hint'}, hint) : null, input);
}

// ---- the API and the token -----------------------------------------------------------------

class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

// Thrown by a read the server refused for want of a token: the view stops, the form shows.
class NeedToken extends Error {}

const storedToken = () => sessionStorage.getItem(TOKEN_KEY) || '';

async function api(method, path, body) {
  const headers = {Accept: 'application/json'};
  const token = storedToken();
  if (token) headers.Authorization = 'Bearer ' + token;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res;
  try {
    // credentials 'omit': no cookie or cached login ever rides along.
    res = await fetch(path, {method, headers, credentials: 'omit', cache: 'no-store',
      body: body === undefined ? undefined : JSON.stringify(body)});
  } catch (e) {
    throw new ApiError(0, 'network', 'quell did not answer (' + e.message + ')');
  }
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  if (!res.ok) {
    const err = (data && data.error) || {};
    throw new ApiError(res.status, err.code || 'http', err.message || 'HTTP ' + res.status);
  }
  return data;
}

// A read for the view: a 401 shows the token form and stops the view.
async function read(path) {
  try {
    return await api('GET', path);
  } catch (e) {
    if (e.status === 401) {
      clearInterval(timer); // no refresh behind the form: it would ask again every 5 s
      showTokenForm(storedToken() ? 'The token was refused; enter it again.'
        : 'This quell needs its token to show anything.');
      throw new NeedToken();
    }
    throw e;
  }
}

// An action (ack, resolve, silence, ...). Without a stored token the form asks for one first
// and the action runs once it is given; a 401 says so and leaves the screen as it was.
async function act(what, method, path, body, done) {
  if (!storedToken()) {
    pendingAction = () => act(what, method, path, body, done);
    showTokenForm(what + ' needs the token.');
    return;
  }
  let data;
  try {
    data = await api(method, path, body);
  } catch (e) {
    if (e.status === 401) say(what + ': the token was refused.');
    else say(what + ' failed: ' + e.message);
    return;
  }
  await done(data);
}

function showTokenForm(message) {
  const shown = document.getElementById('token-form');
  if (shown) { // keep what is being typed; only the reason changes
    document.getElementById('token-form-h').textContent = message;
    document.getElementById('token').focus();
    return;
  }
  const input = h('input', {id: 'token', name: 'token', type: 'password', autocomplete: 'off',
    spellcheck: 'false', required: true});
  const form = h('form', {id: 'token-form'},
    h('p', {id: 'token-form-h'}, message),
    h('label', {for: 'token'}, 'API token'), input,
    h('button', {type: 'submit'}, 'Use token'),
    h('button', {type: 'button', onclick: () => { pendingAction = null; drawTokenArea(); }},
      'Cancel'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const token = input.value.trim();
    if (!token) return;
    sessionStorage.setItem(TOKEN_KEY, token);
    drawTokenArea();
    const action = pendingAction;
    pendingAction = null;
    if (action) action(); else render(true);
  });
  tokenArea.replaceChildren(form);
  input.focus();
}

function drawTokenArea() {
  tokenArea.replaceChildren();
  if (!storedToken()) return;
  tokenArea.append(h('button', {type: 'button', id: 'forget-token', onclick: () => {
    sessionStorage.removeItem(TOKEN_KEY);
    say('The token is forgotten.');
    render();
  }}, 'Forget token'));
}

// ---- routing -------------------------------------------------------------------------------

const pages = [
  [/^\/$/, listPage, 'Incidents'],
  [/^\/incidents\/(.+)$/, incidentPage, 'Incident'],
  [/^\/outbox$/, outboxPage, 'Outbox'],
  [/^\/silences$/, silencesPage, 'Silences'],
  [/^\/maintenance$/, maintenancePage, 'Maintenance'],
  [/^\/sources$/, sourcesPage, 'Sources'],
];

function every(ms, fn) {
  clearInterval(timer);
  let busy = false;
  timer = setInterval(async () => {
    if (busy || document.hidden) return;
    busy = true;
    try { await fn(); } finally { busy = false; }
  }, ms);
}

async function render(focusHeading) {
  const mine = ++view;
  clearInterval(timer);
  timer = null;
  const path = location.pathname;
  for (const a of document.querySelectorAll('nav[aria-label="Sections"] a')) {
    const here = a.getAttribute('href') === path ||
      (a.getAttribute('href') === '/' && path.startsWith('/incidents/'));
    if (here) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  const ctx = {alive: () => mine === view};
  main.replaceChildren();
  try {
    const page = pages.find(([re]) => re.test(path));
    document.title = (page ? page[2] : 'Not found') + ' · quell';
    if (!page) {
      main.append(h('h1', {tabindex: -1}, 'Not found'), h('p', {}, 'No page at ' + path + '.'));
    } else {
      await page[1](ctx, ...path.match(page[0]).slice(1));
    }
  } catch (e) {
    if (!ctx.alive() || e instanceof NeedToken) return;
    main.append(h('p', {class: 'error'}, 'Could not load this page: ' + e.message));
  }
  if (focusHeading && ctx.alive()) {
    const h1 = main.querySelector('h1');
    if (h1) h1.focus();
  }
}

document.addEventListener('click', (e) => {
  const a = e.target.closest('a');
  if (!a || a.origin !== location.origin || a.target || a.hasAttribute('download')) return;
  if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
  if (a.pathname.startsWith('/v1/') || a.pathname.startsWith('/assets/') || a.hash) return;
  e.preventDefault();
  if (a.href !== location.href) history.pushState(null, '', a.href);
  render(true);
});
window.addEventListener('popstate', () => render(true));

// ---- / : the incident list -----------------------------------------------------------------

const LIST_HEADERS = ['Key', 'Condition', 'Labels', 'Severity', 'Status', 'Open for',
  'Upstream events', 'Notifications sent', 'Healthy streak', 'Acked by'];

// The sign repeats the word for the eye; `id` names the word alone (#incident-status).
function statusBadge(status, id) {
  const sign = {open: '●', resolved: '✓'}[status] || '○';
  return h('span', {class: 'badge st-' + status}, h('span', {'aria-hidden': 'true'}, sign + ' '),
    h('span', {id}, status));
}

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

// The list as the contract's store-side filters give it; a quell without them (400 on the new
// parameters) gets the old query, and the page filters, orders and pages in the browser.
let legacyList = false;

async function fetchIncidents(f) {
  if (!legacyList) {
    const q = new URLSearchParams({order: 'triage', limit: PAGE_SIZE, offset: f.offset});
    if (f.q) q.set('q', f.q);
    if (f.label) q.set('label', f.label);
    if (f.condition) q.set('condition', f.condition);
    if (f.status !== 'all') q.set('status', f.status);
    try {
      const data = await read('/v1/incidents?' + q);
      const list = data.incidents || [];
      return {list, total: data.total ?? null};
    } catch (e) {
      const old = e instanceof ApiError && e.status === 400 &&
        /unknown query parameter/i.test(e.message);
      if (!old) throw e;
      legacyList = true;
    }
  }
  const q = new URLSearchParams();
  if (f.condition) q.set('condition', f.condition);
  if (f.status !== 'all') q.set('status', f.status);
  const data = await read('/v1/incidents?' + q);
  const needle = f.q.toLowerCase();
  const all = (data.incidents || []).filter((i) => {
    const labels = Object.entries(i.labels || {}).map(([k, v]) => k + '=' + v);
    if (f.label && !labels.includes(f.label)) return false;
    return !needle || [i.key, i.condition, ...labels].some((s) => s.toLowerCase().includes(needle));
  });
  const time = (i) => parseTime(i.status === 'open' ? i.opened_at : i.resolved_at) || 0;
  all.sort((a, b) => (a.status === 'open' ? 0 : 1) - (b.status === 'open' ? 0 : 1) ||
    time(b) - time(a) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return {list: all.slice(f.offset, f.offset + PAGE_SIZE), total: all.length};
}

async function listPage(ctx) {
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
  const wrap = table('incidents', 'Incidents, open first', LIST_HEADERS, []);
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
      : [emptyRow(LIST_HEADERS.length, 'No incidents match.')]));
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
    summary.textContent = total === null ? `${first}–${last}` : `${first}–${last} of ${total}`;
    prev.disabled = f.offset === 0;
    next.disabled = total === null ? list.length < PAGE_SIZE : last >= total;
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

// ---- /incidents/{key}: one incident's story ------------------------------------------------

// The strip's reading of a decision-log line, for a quell without the timeline route.
function decisionHealth(d) {
  switch (d.decision) {
    case 'notify': case 'update_only': return 'unhealthy';
    case 'resolve': return d.reason === 'manual' ? 'none' : 'healthy';
    case 'unknown': return 'unknown';
    case 'stale': return 'stale';
    default: return 'healthy';
  }
}

function transitionOf(o) {
  if (o.decision === 'notify' && o.reason === 'open') return 'open';
  if (o.decision === 'notify' && o.reason === 'cooldown_elapsed') return 'renotify';
  if (o.decision === 'resolve') return 'resolve';
  return null;
}

const HEALTH_SIGN = {unhealthy: '✕', healthy: '✓', unknown: '?', stale: 'S', none: 'M'};
const HEALTH_WORD = {unhealthy: 'unhealthy', healthy: 'healthy', unknown: 'unknown',
  stale: 'stale', none: 'operator'};
const OUTCOME_SIGN = {sent: '✉', failed: '!', throttled: 'T', dead: '✝', deferred: '…'};

function describeMark(o) {
  const transition = transitionOf(o);
  return `${HEALTH_WORD[o.health] || o.health} poll, ${o.decision}` +
    (o.reason ? ' (' + o.reason + ')' : '') + (transition ? ', ' + transition : '') +
    `, generation ${o.generation}`;
}

function describeAttempt(a) {
  return `send ${a.outcome} to ${a.channel} (${a.transition}, attempt ${a.attempt})` +
    (a.detail ? ': ' + a.detail : '');
}

function markItem(o) {
  const transition = transitionOf(o);
  const what = describeMark(o) + `, at ${o.at}`;
  return h('li', {class: 'mark', 'data-health': o.health, 'data-decision': o.decision,
    'data-transition': transition, 'aria-label': what, title: what},
  h('span', {class: 'sign', 'aria-hidden': 'true'}, HEALTH_SIGN[o.health] || '·'),
  transition ? h('span', {class: 'tr', 'aria-hidden': 'true'}, transition) : null);
}

function attemptItem(a) {
  const what = describeAttempt(a) + `, at ${a.at}`;
  return h('li', {class: 'attempt', 'data-outcome': a.outcome, 'aria-label': what, title: what},
    h('span', {class: 'sign', 'aria-hidden': 'true'}, OUTCOME_SIGN[a.outcome] || '·'));
}

function timelineLegend() {
  const entry = (cls, attr, value, sign, text) => h('li', {},
    h('span', {class: cls + ' legend-sign', [attr]: value, 'aria-hidden': 'true'},
      h('span', {class: 'sign'}, sign)), ' ' + text);
  return h('ul', {class: 'legend', 'aria-label': 'Timeline legend'},
    entry('mark', 'data-health', 'unhealthy', HEALTH_SIGN.unhealthy, 'unhealthy poll'),
    entry('mark', 'data-health', 'healthy', HEALTH_SIGN.healthy, 'healthy poll'),
    entry('mark', 'data-health', 'unknown', HEALTH_SIGN.unknown, 'unknown (source failed)'),
    entry('mark', 'data-health', 'stale', HEALTH_SIGN.stale, 'stale'),
    entry('mark', 'data-health', 'none', HEALTH_SIGN.none, 'operator'),
    entry('attempt', 'data-outcome', 'sent', OUTCOME_SIGN.sent, 'message sent'),
    entry('attempt', 'data-outcome', 'failed', OUTCOME_SIGN.failed, 'send failed, retried'),
    entry('attempt', 'data-outcome', 'dead', OUTCOME_SIGN.dead, 'send gave up'),
    h('li', {}, h('span', {class: 'tr-sample', 'aria-hidden': 'true'}, 'open'),
      ' a transition (open, renotify, resolve) under its poll'));
}

function byTime(a, b) {
  return (parseTime(a.at) || 0) - (parseTime(b.at) || 0);
}

// What the page draws: the timeline route's answer, or the same shape from the decision log.
async function fetchStory(key) {
  const one = await read('/v1/incidents/' + enc(key) + '?limit=200');
  let timeline = null;
  try {
    timeline = await read('/v1/incidents/' + enc(key) + '/timeline');
  } catch (e) {
    if (e instanceof NeedToken || !(e instanceof ApiError) || e.status !== 404) throw e;
  }
  if (!timeline) {
    const observations = (one.decisions || []).slice().reverse().map((d) => ({
      at: d.at, poll_id: d.poll_id, generation: d.generation, health: decisionHealth(d),
      decision: d.decision, reason: d.reason || '', version: d.version}));
    const gens = new Map();
    for (const o of observations) {
      const g = gens.get(o.generation) || {generation: o.generation, opened_at: null,
        resolved_at: null};
      if (o.decision === 'notify' && !g.opened_at) g.opened_at = o.at;
      if (o.decision === 'resolve') g.resolved_at = o.at;
      gens.set(o.generation, g);
    }
    timeline = {observations, attempts: [], generations: [...gens.values()], fallback: true};
  }
  return {incident: one.incident, outbox: one.outbox || [], timeline};
}

function summaryList(inc) {
  const row = (term, value, id) => [h('dt', {}, term), h('dd', {id}, value)];
  return h('dl', {class: 'facts'},
    row('Status', statusBadge(inc.status, 'incident-status')),
    row('Acked by', [h('span', {id: 'acked-by'}, inc.acked_by || ''), inc.acked_by
      ? [' (', when(inc.acked_at), ')'] : 'nobody']),
    row('Condition', inc.condition),
    row('Severity', inc.severity || '—'),
    row('Labels', labelsText(inc.labels) || '—'),
    row('Generation', inc.generation),
    row('Opened', when(inc.opened_at)),
    row('Resolved', when(inc.resolved_at)),
    row('Last seen', when(inc.last_seen_at)),
    row('Upstream events', inc.upstream_count ?? inc.event_count ?? '—'),
    row('Healthy streak', inc.healthy_streak ?? '—'),
    // A manual resolve holds the key: no new incident until it is seen healthy (or the time).
    inc.held ? row('Held until', inc.held_until ? when(inc.held_until) : 'seen healthy') : null);
}

function messagesTable(outbox, attempts) {
  const byKey = new Map();
  for (const a of attempts) {
    if (!byKey.has(a.idempotency_key)) byKey.set(a.idempotency_key, []);
    byKey.get(a.idempotency_key).push(a.outcome);
  }
  const rows = outbox.map((r) => h('tr', {'data-idempotency-key': r.idempotency_key,
    'data-status': r.status},
  h('td', {class: 'mono'}, r.idempotency_key), h('td', {}, r.channel), h('td', {}, r.transition),
  h('td', {class: 'num'}, r.generation), h('td', {}, r.status), h('td', {class: 'num'}, r.attempts),
  h('td', {}, (byKey.get(r.idempotency_key) || []).join(' → ') || '—'),
  // A sent row keeps the error of a failed attempt before; the outcomes column tells that.
  h('td', {class: 'wrap'}, r.remote_message_id || (r.status === 'sent' ? '' : r.last_error)),
  h('td', {}, when(r.updated_at))));
  return table('messages-table', 'Messages', ['Idempotency key', 'Channel', 'Transition',
    'Generation', 'Status', 'Attempts', 'Outcomes', 'Message id or error', 'Updated'],
  rows.length ? rows : [emptyRow(9, 'No messages.')]);
}

function generationsTable(generations) {
  const rows = generations.map((g) => h('tr', {'data-generation': g.generation},
    h('td', {class: 'num'}, g.generation), h('td', {}, when(g.opened_at)),
    h('td', {}, g.resolved_at ? when(g.resolved_at) : 'still open')));
  return table('generations-table', 'Generations', ['Generation', 'Opened', 'Resolved'],
    rows.length ? rows : [emptyRow(3, 'None recorded.')]);
}

// Newest first; a poll that saw the same thing again adds a count, not another copy.
function evidenceList(items) {
  if (!items || !items.length) return h('p', {}, 'No evidence kept.');
  const groups = new Map();
  for (const item of items.slice().reverse()) {
    const text = JSON.stringify(item);
    const g = groups.get(text) || {item, count: 0};
    g.count += 1;
    groups.set(text, g);
  }
  return h('ol', {class: 'evidence'}, [...groups.values()].map(({item, count}) => h('li', {},
    count > 1 ? h('p', {class: 'hint'}, `kept ${count} times`) : null,
    h('dl', {class: 'facts'}, Object.entries(item || {}).map(([k, v]) => [h('dt', {}, k),
      h('dd', {class: 'wrap'}, typeof v === 'object' && v !== null ? JSON.stringify(v)
        : String(v))])))));
}

async function incidentPage(ctx, encoded) {
  let key;
  try { key = decodeURIComponent(encoded); } catch { key = encoded; }
  document.title = key + ' · quell';
  const heading = h('h1', {tabindex: -1}, 'Incident ', h('code', {class: 'key'}, key));
  main.append(h('p', {class: 'crumb'}, h('a', {href: '/'}, '← Back to the list')), heading);
  let story;
  try {
    story = await fetchStory(key);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) {
      main.append(h('p', {}, 'quell has no incident with this key.'));
      return;
    }
    throw e;
  }
  if (!ctx.alive()) return;

  const facts = h('div', {id: 'facts'});
  const strip = h('ol', {id: 'timeline',
    'aria-label': 'Observations and delivery attempts, oldest first'});
  const stripNote = h('p', {class: 'hint'});
  const stripTable = h('div');
  const messages = h('div');
  const generations = h('div');
  const evidence = h('div');

  const ack = h('button', {type: 'button'}, 'Acknowledge');
  const resolve = h('button', {type: 'button'}, 'Resolve');
  const duration = h('input', {id: 'silence-for', name: 'for', value: '1h', size: 6,
    autocomplete: 'off', 'aria-describedby': 'silence-for-hint'});
  const reason = h('input', {id: 'silence-reason', name: 'reason', autocomplete: 'off'});
  const silenceForm = h('form', {class: 'inline', 'aria-label': 'Silence this incident'},
    field('silence-for', 'Duration', duration, 'e.g. 30m, 1h, 2h'),
    field('silence-reason', 'Reason', reason),
    h('button', {type: 'submit'}, 'Silence'));

  function draw(s) {
    story = s;
    const inc = s.incident;
    facts.replaceChildren(summaryList(inc));
    const items = [...s.timeline.observations.map((o) => ({at: o.at, el: () => markItem(o),
      what: () => describeMark(o)})),
    ...(s.timeline.attempts || []).map((a) => ({at: a.at, el: () => attemptItem(a),
      what: () => describeAttempt(a)}))];
    items.sort(byTime); // stable: at one instant the decision comes before its sends
    strip.replaceChildren(...items.map((i) => i.el()));
    // The same items as text, newest first, for whoever cannot hover the strip's titles.
    stripTable.replaceChildren(table('timeline-table', 'Timeline, newest first', ['When', 'What'],
      items.slice().reverse().map((i) => h('tr', {}, h('td', {}, when(i.at)),
        h('td', {class: 'wrap'}, i.what())))));
    stripNote.textContent = s.timeline.fallback
      ? 'From the decision log only: this quell has no timeline route, so unknown and stale ' +
        'polls and send attempts are not shown.' : '';
    messages.replaceChildren(messagesTable(s.outbox, s.timeline.attempts || []));
    generations.replaceChildren(generationsTable(s.timeline.generations || []));
    evidence.replaceChildren(evidenceList(inc.recent_evidence));
    ack.disabled = inc.status !== 'open';
    resolve.disabled = inc.status !== 'open';
  }
  async function reload() {
    const s = await fetchStory(key);
    if (ctx.alive()) draw(s);
  }

  ack.addEventListener('click', () => act('Acknowledge', 'POST',
    '/v1/incidents/' + enc(key) + '/ack', {}, async (data) => {
      say('Acknowledged by ' + (data.incident?.acked_by || 'you') + '.');
      await reload();
    }));
  resolve.addEventListener('click', () => act('Resolve', 'POST',
    '/v1/incidents/' + enc(key) + '/resolve', {}, async () => {
      say('Resolved.');
      await reload();
    }));
  silenceForm.addEventListener('submit', (e) => {
    e.preventDefault();
    if (!reason.value.trim()) {
      say('Silence: give a reason.');
      reason.focus();
      return;
    }
    act('Silence', 'POST', '/v1/silences',
      {pattern: key, for: duration.value.trim() || '1h', reason: reason.value.trim()},
      async (data) => {
        say('Silenced until ' + (data.silence?.expires_at || '?') + '.');
        reason.value = '';
      });
  });

  main.append(facts,
    h('section', {id: 'actions', 'aria-label': 'Actions'},
      h('div', {class: 'buttons'}, ack, resolve), silenceForm),
    section('story', 'Timeline', strip, stripNote, timelineLegend(),
      h('details', {}, h('summary', {}, 'The timeline as a table'), stripTable)),
    section('messages', 'Messages', messages),
    section('generations', 'Generations', generations),
    section('evidence', 'Evidence', evidence));
  draw(story);
  every(REFRESH_MS, () => reload().catch(() => {}));
}

// ---- /outbox -------------------------------------------------------------------------------

const OUTBOX_STATUSES = ['pending', 'in_flight', 'dead', 'sent', 'shadow', 'muted', 'grouped',
  'superseded', 'folded', 'silenced', 'dropped'];

async function outboxPage(ctx) {
  const params = new URLSearchParams(location.search);
  let status = OUTBOX_STATUSES.includes(params.get('status')) ? params.get('status') : '';
  const select = h('select', {id: 'o-status', name: 'status'},
    h('option', {value: ''}, 'all'),
    OUTBOX_STATUSES.map((s) => h('option', {value: s, selected: s === status}, s)));
  const holder = h('div');
  main.append(h('h1', {tabindex: -1}, 'Outbox'),
    h('form', {class: 'filters', 'aria-label': 'Filter the outbox',
      onsubmit: (e) => e.preventDefault()}, field('o-status', 'Status', select)),
    holder);

  async function refresh() {
    const q = new URLSearchParams({limit: 500});
    if (status) q.set('status', status);
    const data = await read('/v1/outbox?' + q);
    if (!ctx.alive()) return;
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

function rowId(s) {
  let n = 0;
  for (const c of s) n = (n * 31 + c.codePointAt(0)) >>> 0;
  return n.toString(36);
}

// ---- /silences -----------------------------------------------------------------------------

async function silencesPage(ctx) {
  const pattern = h('input', {id: 's-pattern', name: 'pattern', required: true,
    autocomplete: 'off', 'aria-describedby': 's-pattern-hint'});
  const duration = h('input', {id: 's-for', name: 'for', value: '1h', required: true, size: 6,
    autocomplete: 'off'});
  const reason = h('input', {id: 's-reason', name: 'reason', required: true, autocomplete: 'off'});
  const form = h('form', {class: 'add', 'aria-label': 'Add a silence'},
    field('s-pattern', 'Pattern', pattern, 'a key or glob, e.g. acme:*'),
    field('s-for', 'Duration', duration), field('s-reason', 'Reason', reason),
    h('button', {type: 'submit'}, 'Add silence'));
  const holder = h('div');
  main.append(h('h1', {tabindex: -1}, 'Silences'), form, h('h2', {}, 'Active silences'), holder);

  async function refresh() {
    const data = await read('/v1/silences');
    if (!ctx.alive()) return;
    const rows = (data.silences || []).map((s) => h('tr', {'data-id': s.id},
      h('td', {class: 'num'}, s.id), h('td', {class: 'mono'}, s.pattern),
      h('td', {}, when(s.expires_at)), h('td', {class: 'wrap'}, s.reason),
      h('td', {}, s.created_by), h('td', {}, when(s.created_at)),
      h('td', {}, h('button', {type: 'button', 'aria-label': 'Expire silence ' + s.id,
        onclick: () => act('Expire', 'DELETE', '/v1/silences/' + s.id, undefined, async () => {
          say('Silence ' + s.id + ' expired.');
          await refresh();
        })}, 'Expire'))));
    holder.replaceChildren(table('silences', 'Active silences', ['Id', 'Pattern', 'Expires',
      'Reason', 'By', 'Created', 'Actions'], rows.length ? rows : [emptyRow(7, 'None.')]));
  }
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    act('Add silence', 'POST', '/v1/silences', {pattern: pattern.value.trim(),
      for: duration.value.trim(), reason: reason.value.trim()}, async (data) => {
      say('Silence ' + (data.silence?.id ?? '') + ' added.');
      pattern.value = '';
      reason.value = '';
      await refresh();
    });
  });
  await refresh();
}

// ---- /maintenance --------------------------------------------------------------------------

const DURATION = /^(\d+(ms|s|m|h|d))+$/;

// "2026-12-04T18:00" (local), an RFC 3339 time, or empty -> RFC 3339 UTC without fractions.
function toRfc3339(text) {
  const t = Date.parse(text);
  if (Number.isNaN(t)) return null;
  return new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

async function maintenancePage(ctx) {
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

  async function refresh() {
    const data = await read('/v1/maintenance');
    if (!ctx.alive()) return;
    const rows = (data.windows || []).map((w) => h('tr', {'data-name': w.name,
      'data-active': String(!!w.active)},
    h('td', {}, w.name), h('td', {class: 'mono'}, w.keys), h('td', {}, labelsText(w.labels)),
    h('td', {}, w.time_zone), h('td', {}, (w.weekdays || []).join(', ')),
    h('td', {}, (w.times || []).join(', ')), h('td', {}, w.active ? 'active' : 'no'),
    h('td', {}, when(w.start)), h('td', {}, when(w.end))));
    configured.replaceChildren(table('maintenance-configured', 'Configured windows',
      ['Name', 'Keys', 'Labels', 'Zone', 'Weekdays', 'Times', 'Active', 'Start', 'End'],
      rows.length ? rows : [emptyRow(9, 'None configured.')]));
    if (!Array.isArray(data.one_off)) {
      oneOff.replaceChildren(h('p', {}, 'This quell does not keep one-off windows.'));
      return;
    }
    const now = Date.now();
    const offRows = data.one_off.map((w) => h('tr', {'data-id': w.id,
      'data-active': String(!!w.active)},
    h('td', {class: 'num'}, w.id), h('td', {}, w.name || ''), h('td', {class: 'mono'}, w.keys),
    h('td', {}, labelsText(w.labels)), h('td', {}, when(w.starts_at)),
    h('td', {}, when(w.ends_at)), h('td', {class: 'wrap'}, w.reason),
    h('td', {}, w.created_by), h('td', {}, w.active ? 'active' : 'no'),
    h('td', {}, (parseTime(w.ends_at) || 0) > now ? h('button', {type: 'button',
      'aria-label': 'Expire window ' + w.id, onclick: () => act('Expire', 'POST',
        '/v1/maintenance/' + enc(w.id) + '/expire', undefined, async () => {
          say('Window ' + w.id + ' expired.');
          await refresh();
        })}, 'Expire') : 'ended')));
    oneOff.replaceChildren(table('maintenance-one-off', 'One-off windows', ['Id', 'Name', 'Keys',
      'Labels', 'Starts', 'Ends', 'Reason', 'By', 'Active', 'Actions'],
    offRows.length ? offRows : [emptyRow(10, 'None in the last day.')]));
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

// ---- /sources ------------------------------------------------------------------------------

function yesNo(v) {
  return v === null || v === undefined ? '—' : v ? 'yes' : 'no';
}

async function sourcesPage(ctx) {
  const body = h('div');
  main.append(h('h1', {tabindex: -1}, 'Sources'), body);
  await drawSources(ctx, body);
  if (ctx.alive()) every(REFRESH_MS, () => drawSources(ctx, body).catch(() => {}));
}

// Everything but the heading, redrawn whole at each refresh (there is nothing to type here).
async function drawSources(ctx, into) {
  const [sources, status, health] = await Promise.all([
    read('/v1/sources').catch((e) => {
      if (e instanceof ApiError && e.status === 404) return null;
      throw e;
    }),
    read('/v1/status'),
    fetch('/healthz', {credentials: 'omit', cache: 'no-store'}).then(async (r) =>
      ({code: r.status, body: await r.json().catch(() => ({}))}))
      .catch((e) => ({code: 0, body: {status: 'unreachable', reason: e.message}})),
  ]);
  if (!ctx.alive()) return;
  const out = h('div'); // drawn aside, then swapped in at once

  const hb = health.body || {};
  out.append(section('health', 'Liveness (/healthz)', h('dl', {class: 'facts'},
    h('dt', {}, 'Answer'), h('dd', {id: 'healthz-status'}, `${health.code} ${hb.status || ''}`),
    h('dt', {}, 'Why'), h('dd', {}, hb.reason || '—'),
    h('dt', {}, 'Role'), h('dd', {}, hb.role || '—'),
    h('dt', {}, 'Last committed cycle'), h('dd', {}, when(hb.last_committed_cycle)))));

  if (!sources) {
    out.append(h('p', {}, 'This quell does not list its sources (no GET /v1/sources).'));
  } else {
    out.append(section('source-list', 'Sources', table('sources', 'Sources',
      ['Name', 'Type', 'Base URL', 'Conditions'], (sources.sources || []).map((s) =>
        h('tr', {'data-name': s.name}, h('td', {}, s.name), h('td', {}, s.type),
          h('td', {class: 'wrap'}, s.base_url), h('td', {}, (s.conditions || []).join(', ')))))));
    out.append(section('conditions', 'Conditions', table('conditions-table', 'Conditions',
      ['Name', 'Source', 'Interval', 'Shadow', 'Last cycle', 'Source ok', 'Applied',
        'Observations', 'Error'], (sources.conditions || []).map((c) => {
        const lc = c.last_cycle;
        return h('tr', {'data-name': c.name}, h('td', {}, c.name), h('td', {}, c.source),
          h('td', {}, c.interval), h('td', {}, yesNo(c.shadow)),
          h('td', {}, lc ? when(lc.at) : 'none yet'), h('td', {}, lc ? yesNo(lc.source_ok) : '—'),
          h('td', {}, lc ? yesNo(lc.applied) : '—'), h('td', {class: 'num'},
            lc ? lc.observations : '—'),
          h('td', {class: 'wrap'}, lc ? lc.source_error || lc.apply_error || '' : ''));
      }))));
    const beat = sources.heartbeat || {};
    out.append(section('heartbeat', 'Heartbeat', beat.configured === false
      ? h('p', {}, 'No heartbeat is configured.')
      : h('dl', {class: 'facts'},
        h('dt', {}, 'Last ping'), h('dd', {}, when(beat.last_ping_at)),
        h('dt', {}, 'Last ping ok'), h('dd', {}, yesNo(beat.last_ok)),
        h('dt', {}, 'Sent, failed, dropped'),
        h('dd', {}, `${beat.sent ?? 0}, ${beat.failed ?? 0}, ${beat.dropped ?? 0}`))));
  }

  out.append(section('poll-groups', 'Poll groups', table('poll-groups-table', 'Poll groups',
    ['Lease', 'Conditions', 'Held', 'Holder', 'Token', 'Expires', 'Last poll'],
    (status.poll_groups || []).map((g) => h('tr', {'data-lease': g.lease},
      h('td', {class: 'mono'}, g.lease), h('td', {}, (g.conditions || []).join(', ')),
      h('td', {}, yesNo(g.held)), h('td', {class: 'wrap'}, g.holder || '—'),
      h('td', {class: 'num'}, g.token), h('td', {}, when(g.expires_at)),
      h('td', {}, when(g.polled_at)))))));
  out.append(section('instances', 'Instances', table('instances-table', 'Instances',
    ['Id', 'Host', 'Version', 'Started', 'Last seen', 'Live'],
    (status.instances || []).map((i) => h('tr', {'data-id': i.id},
      h('td', {class: 'wrap'}, i.id + (i.id === status.instance ? ' (this one)' : '')),
      h('td', {}, i.host), h('td', {}, i.version), h('td', {}, when(i.started_at)),
      h('td', {}, when(i.last_seen_at)), h('td', {}, yesNo(i.live)))))));
  into.replaceChildren(...out.childNodes);
}

// ---- start ---------------------------------------------------------------------------------

drawTokenArea();
render(false);
