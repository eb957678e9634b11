// /sources: what /healthz answers, the sources, each condition's last cycle, the heartbeat,
// the poll groups with their holders and the instances (GET /v1/sources, GET /v1/status).

import {read} from './api.js';
import {h, main, section, table, yesNo} from './dom.js';
import {REFRESH_MS, every} from './refresh.js';
import {when} from './time.js';

export async function sourcesPage(ctx) {
  const body = h('div');
  main.append(h('h1', {tabindex: -1}, 'Sources'), body);
  await drawSources(ctx, body);
  if (ctx.alive()) every(REFRESH_MS, () => drawSources(ctx, body).catch(() => {}));
}

// The public probe, as a load balancer sees it: its code and body, or why it did not answer.
function probe() {
  return fetch('/healthz', {credentials: 'omit', cache: 'no-store'}).then(async (r) =>
    ({code: r.status, body: await r.json().catch(() => ({}))}))
    .catch((e) => ({code: 0, body: {status: 'unreachable', reason: e.message}}));
}

function healthSection(health) {
  const hb = health.body || {};
  return section('health', 'Liveness (/healthz)', h('dl', {class: 'facts'},
    h('dt', {}, 'Answer'), h('dd', {id: 'healthz-status'}, `${health.code} ${hb.status || ''}`),
    h('dt', {}, 'Why'), h('dd', {}, hb.reason || '—'),
    h('dt', {}, 'Role'), h('dd', {}, hb.role || '—'),
    h('dt', {}, 'Last committed cycle'), h('dd', {}, when(hb.last_committed_cycle))));
}

function conditionRow(c) {
  const lc = c.last_cycle;
  return h('tr', {'data-name': c.name}, h('td', {}, c.name), h('td', {}, c.source),
    h('td', {}, c.interval), h('td', {}, yesNo(c.shadow)),
    h('td', {}, lc ? when(lc.at) : 'none yet'), h('td', {}, lc ? yesNo(lc.source_ok) : '—'),
    h('td', {}, lc ? yesNo(lc.applied) : '—'), h('td', {class: 'num'},
      lc ? lc.observations : '—'),
    h('td', {class: 'wrap'}, lc ? lc.source_error || lc.apply_error || '' : ''));
}

function heartbeatSection(beat) {
  return section('heartbeat', 'Heartbeat', beat.configured === false
    ? h('p', {}, 'No heartbeat is configured.')
    : h('dl', {class: 'facts'},
      h('dt', {}, 'Last ping'), h('dd', {}, when(beat.last_ping_at)),
      h('dt', {}, 'Last ping ok'), h('dd', {}, yesNo(beat.last_ok)),
      h('dt', {}, 'Sent, failed, dropped'),
      h('dd', {}, `${beat.sent ?? 0}, ${beat.failed ?? 0}, ${beat.dropped ?? 0}`)));
}

// Everything but the heading, redrawn whole at each refresh (there is nothing to type here).
async function drawSources(ctx, into) {
  const [sources, status, health] =
    await Promise.all([read('/v1/sources'), read('/v1/status'), probe()]);
  if (!ctx.alive()) return;
  const out = h('div'); // drawn aside, then swapped in at once
  out.append(healthSection(health));
  out.append(section('source-list', 'Sources', table('sources', 'Sources',
    ['Name', 'Type', 'Base URL', 'Conditions'], (sources.sources || []).map((s) =>
      h('tr', {'data-name': s.name}, h('td', {}, s.name), h('td', {}, s.type),
        h('td', {class: 'wrap'}, s.base_url), h('td', {}, (s.conditions || []).join(', ')))))));
  out.append(section('conditions', 'Conditions', table('conditions-table', 'Conditions',
    ['Name', 'Source', 'Interval', 'Shadow', 'Last cycle', 'Source ok', 'Applied',
      'Observations', 'Error'], (sources.conditions || []).map(conditionRow))));
  out.append(heartbeatSection(sources.heartbeat || {}));
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
