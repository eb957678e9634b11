// /incidents/{key}: one incident's story: its facts, the actions, the timeline strip
// (GET /v1/incidents/{key}/timeline), its messages, generations and evidence.

import {ApiError, act, read} from './api.js';
import {emptyRow, enc, field, groupHref, h, labelsText, main, say, section, statusBadge, table}
  from './dom.js';
import {REFRESH_MS, every} from './refresh.js';
import {byTime, when} from './time.js';

// ---- the timeline strip --------------------------------------------------------------------

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

// Observations and attempts in one time order, each as a strip item and as a line of text.
function timelineItems(timeline) {
  const items = [...timeline.observations.map((o) => ({at: o.at, el: () => markItem(o),
    what: () => describeMark(o)})),
  ...timeline.attempts.map((a) => ({at: a.at, el: () => attemptItem(a),
    what: () => describeAttempt(a)}))];
  items.sort(byTime); // stable: at one instant the decision comes before its sends
  return items;
}

// ---- the rest of the story -----------------------------------------------------------------

async function fetchStory(key) {
  const one = await read('/v1/incidents/' + enc(key) + '?limit=200');
  const timeline = await read('/v1/incidents/' + enc(key) + '/timeline');
  return {incident: one.incident, outbox: one.outbox || [], groups: one.group_messages || [],
    timeline};
}

// Only a web address becomes a link: a pushed annotation could hold javascript:.
function webLink(url, text) {
  return /^https?:\/\/[^/?#\s]/i.test(url || '')
    ? h('a', {href: url, rel: 'noopener noreferrer', target: '_blank'}, text || url) : null;
}

// A pushed alert's evidence: Alertmanager's or Grafana's, with its annotations.
function isAlert(e) {
  return e && typeof e === 'object' && !('title' in e) && typeof e.status === 'string' &&
    e.annotations && typeof e.annotations === 'object';
}

// The newest pushed alert's summary, description and runbook, as people read them.
function alertFacts(inc, row) {
  const newest = (inc.recent_evidence || []).at(-1);
  if (!isAlert(newest)) return null;
  const a = newest.annotations;
  return [a.summary || a.message ? row('Summary', a.summary || a.message, 'alert-summary') : null,
    a.description ? row('Description', a.description, 'alert-description') : null,
    webLink(a.runbook_url) ? row('Runbook', webLink(a.runbook_url), 'alert-runbook') : null,
    newest.startsAt ? row('Firing since', when(newest.startsAt), 'alert-since') : null];
}

function summaryList(inc) {
  const row = (term, value, id) => [h('dt', {}, term), h('dd', {id}, value)];
  return h('dl', {class: 'facts'},
    row('Status', statusBadge(inc.status, 'incident-status')),
    row('Acked by', [h('span', {id: 'acked-by'}, inc.acked_by || ''), inc.acked_by
      ? [' (', when(inc.acked_at), ')'] : 'nobody']),
    row('Condition', inc.condition),
    row('Severity', inc.severity || '—', 'severity'),
    alertFacts(inc, row),
    row('Labels', labelsText(inc.labels) || '—'),
    row('Generation', inc.generation),
    row('Opened', when(inc.opened_at)),
    row('Resolved', when(inc.resolved_at)),
    row('Last seen', when(inc.last_seen_at)),
    row('Upstream events', inc.upstream_count ?? inc.event_count ?? '—'),
    // Of this generation, a grouped row counting once its group message was sent.
    row('Notifications sent', inc.notifications_sent ?? '—', 'notifications-sent'),
    row('Healthy streak', inc.healthy_streak ?? '—'),
    // A manual resolve holds the key: no new incident until it is seen healthy (or the time).
    inc.held ? row('Held until', inc.held_until ? when(inc.held_until) : 'seen healthy') : null);
}

// Moves to a group message's row in the table below without a navigation (a hash change
// would redraw the page).
function toGroupRow(e) {
  const target = document.getElementById(e.currentTarget.getAttribute('href').slice(1));
  if (!target) return;
  e.preventDefault();
  target.scrollIntoView({block: 'center'});
  target.focus();
}

// A grouped row: its status, and the group message that took it, linked to that message's row.
function statusCell(r, groups) {
  if (!r.group_row) return r.status;
  const g = groups.get(r.group_row);
  const what = !g ? 'in a group message' : g.status === 'sent' ? 'sent in a group message'
    : 'in a group message, ' + g.status;
  return [r.status, ' → ', h('a', {href: '#gm-' + r.group_row, class: 'group-link',
    onclick: toGroupRow}, what)];
}

function messagesTable(outbox, attempts, groups) {
  const byKey = new Map();
  for (const a of attempts) {
    if (!byKey.has(a.idempotency_key)) byKey.set(a.idempotency_key, []);
    byKey.get(a.idempotency_key).push(a.outcome);
  }
  const groupsByKey = new Map(groups.map((g) => [g.idempotency_key, g]));
  const rows = outbox.map((r) => h('tr', {'data-idempotency-key': r.idempotency_key,
    'data-status': r.status},
  h('td', {class: 'mono'}, r.idempotency_key), h('td', {}, r.channel), h('td', {}, r.transition),
  h('td', {class: 'num'}, r.generation), h('td', {}, statusCell(r, groupsByKey)),
  h('td', {class: 'num'}, r.attempts),
  h('td', {}, (byKey.get(r.idempotency_key) || []).join(' → ') || '—'),
  // A sent row keeps the error of a failed attempt before; the outcomes column tells that.
  h('td', {class: 'wrap'}, r.remote_message_id || (r.status === 'sent' ? '' : r.last_error)),
  h('td', {}, when(r.updated_at))));
  return table('messages-table', 'Messages', ['Idempotency key', 'Channel', 'Transition',
    'Generation', 'Status', 'Attempts', 'Outcomes', 'Message id or error', 'Updated'],
  rows.length ? rows : [emptyRow(9, 'No messages.')]);
}

// The group messages that carried this incident, each the target of its members' links.
function groupMessagesTable(groups) {
  if (!groups.length) return [];
  const rows = groups.map((g) => h('tr', {id: 'gm-' + g.idempotency_key, tabindex: -1,
    'data-idempotency-key': g.idempotency_key, 'data-status': g.status},
  h('td', {class: 'mono'}, g.idempotency_key), h('td', {}, g.channel),
  h('td', {class: 'wrap'}, h('a', {href: groupHref(g.channel, g.group_key), class: 'group-page'},
    g.group_key)), h('td', {}, g.transition),
  h('td', {}, g.status), h('td', {class: 'num'}, g.attempts), h('td', {}, when(g.sent_at)),
  h('td', {class: 'wrap'}, g.remote_message_id || (g.status === 'sent' ? '' : g.last_error))));
  return [h('h3', {id: 'group-messages-h'}, 'Group messages that carried it'),
    table('group-messages-table', 'Group messages that carried it', ['Idempotency key',
      'Channel', 'Group', 'Transition', 'Status', 'Attempts', 'Sent', 'Message id or error'],
    rows)];
}

function generationsTable(generations) {
  const rows = generations.map((g) => h('tr', {'data-generation': g.generation},
    h('td', {class: 'num'}, g.generation), h('td', {}, when(g.opened_at)),
    h('td', {}, g.resolved_at ? when(g.resolved_at) : 'still open'),
    h('td', {class: 'acked-by'}, g.acked_at ? [g.acked_by || 'yes', ' (', when(g.acked_at), ')']
      : '—')));
  return table('generations-table', 'Generations', ['Generation', 'Opened', 'Resolved',
    'Acked by'], rows.length ? rows : [emptyRow(4, 'None recorded.')]);
}

// One evidence value: a pushed alert's annotations each on its own, its links clickable.
function evidenceValue(k, v) {
  if (k === 'annotations' && v && typeof v === 'object') {
    return h('dl', {class: 'facts'}, Object.entries(v).map(([n, t]) => [h('dt', {}, n),
      h('dd', {class: 'wrap'}, (n.endsWith('_url') && webLink(String(t))) || String(t))]));
  }
  if (k === 'generatorURL' && webLink(v)) return webLink(v);
  return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
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
      h('dd', {class: 'wrap'}, evidenceValue(k, v))])))));
}

export async function incidentPage(ctx, encoded) {
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
    const items = timelineItems(s.timeline);
    strip.replaceChildren(...items.map((i) => i.el()));
    // The same items as text, newest first, for whoever cannot hover the strip's titles.
    stripTable.replaceChildren(table('timeline-table', 'Timeline, newest first', ['When', 'What'],
      items.slice().reverse().map((i) => h('tr', {}, h('td', {}, when(i.at)),
        h('td', {class: 'wrap'}, i.what())))));
    messages.replaceChildren(messagesTable(s.outbox, s.timeline.attempts, s.groups),
      ...groupMessagesTable(s.groups));
    generations.replaceChildren(generationsTable(s.timeline.generations));
    evidence.replaceChildren(evidenceList(inc.recent_evidence));
    ack.disabled = inc.status !== 'open';
    resolve.disabled = inc.status !== 'open';
  }
  // Only the newest read is drawn: a refresh that started before an ack may answer after the
  // ack's own reload, and would show the incident unacked again until the next one.
  let asked = 0;
  async function reload() {
    const mine = ++asked;
    const s = await fetchStory(key);
    if (ctx.alive() && mine === asked) draw(s);
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
    // `key`: this incident's key exactly. Keys are outsiders' text and may hold `*`; sent as a
    // pattern, `*:*` would silence every incident.
    act('Silence', 'POST', '/v1/silences',
      {key, for: duration.value.trim() || '1h', reason: reason.value.trim()},
      async (data) => {
        say('Silenced until ' + (data.silence?.expires_at || '?') + '.');
        reason.value = '';
      });
  });

  main.append(facts,
    h('section', {id: 'actions', 'aria-label': 'Actions'},
      h('div', {class: 'buttons'}, ack, resolve), silenceForm),
    section('story', 'Timeline', strip, timelineLegend(),
      h('details', {}, h('summary', {}, 'The timeline as a table'), stripTable)),
    section('messages', 'Messages', messages),
    section('generations', 'Generations', generations),
    section('evidence', 'Evidence', evidence));
  draw(story);
  every(REFRESH_MS, () => reload().catch(() => {}));
}
