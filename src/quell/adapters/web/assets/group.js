// /groups/{channel}/{group}: a grouped channel's group, where a group message's link lands:
// the incidents its messages carried, open first, and its messages (GET /v1/groups/...).

import {ApiError, NeedToken, read} from './api.js';
import {emptyRow, enc, h, incidentHref, labelsText, main, section, statusBadge, table}
  from './dom.js';
import {REFRESH_MS, every} from './refresh.js';
import {when} from './time.js';

function memberRow(inc) {
  return h('tr', {'data-key': inc.key, 'data-status': inc.status},
    h('td', {class: 'key'}, h('a', {href: incidentHref(inc.key)}, inc.key)),
    h('td', {}, statusBadge(inc.status)),
    h('td', {}, inc.severity || '—'),
    h('td', {class: 'num'}, inc.generation),
    h('td', {}, when(inc.opened_at)),
    h('td', {class: 'acked-by'}, inc.acked_by || ''));
}

function messageRow(m) {
  return h('tr', {'data-idempotency-key': m.idempotency_key, 'data-status': m.status},
    h('td', {class: 'mono'}, m.idempotency_key), h('td', {class: 'num'}, m.generation),
    h('td', {}, m.transition), h('td', {}, m.status), h('td', {class: 'num'}, m.attempts),
    h('td', {}, when(m.sent_at)),
    h('td', {class: 'wrap'}, m.remote_message_id || (m.status === 'sent' ? '' : m.last_error)));
}

export async function groupPage(ctx, encodedChannel, encodedGroup) {
  const decode = (s) => { try { return decodeURIComponent(s); } catch { return s; } };
  const channel = decode(encodedChannel);
  const group = decode(encodedGroup);
  document.title = 'Group ' + group + ' · quell';
  main.append(h('p', {class: 'crumb'}, h('a', {href: '/'}, '← Back to the list')),
    h('h1', {tabindex: -1}, 'Group ', h('code', {class: 'key', id: 'group-key'}, group),
      ' on ', h('code', {id: 'group-channel'}, channel)));
  const path = '/v1/groups/' + enc(channel) + '/' + enc(group);
  let data;
  try {
    data = await read(path);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) {
      main.append(h('p', {}, 'quell has no group ' + group + ' on channel ' + channel + '.'));
      return;
    }
    throw e;
  }
  if (!ctx.alive()) return;
  const facts = h('div', {id: 'group-facts'});
  const members = h('div');
  const messages = h('div');
  function draw(d) {
    facts.replaceChildren(h('dl', {class: 'facts'},
      h('dt', {}, 'Labels'), h('dd', {}, labelsText(d.group.labels) || '—'),
      h('dt', {}, 'Open now'), h('dd', {id: 'group-open'}, String(d.group.open)),
      h('dt', {}, 'Members'), h('dd', {id: 'group-members'}, String(d.group.members))));
    const rows = (d.members || []).map(memberRow);
    members.replaceChildren(table('group-members-table', 'Members, open first', ['Key', 'Status',
      'Severity', 'Generation', 'Opened', 'Acked by'],
    rows.length ? rows : [emptyRow(6, 'No member recorded.')]));
    const sent = (d.messages || []).map(messageRow);
    messages.replaceChildren(table('group-messages-table', 'Messages, newest first',
      ['Idempotency key', 'Message', 'Transition', 'Status', 'Attempts', 'Sent',
        'Message id or error'], sent.length ? sent : [emptyRow(7, 'No message recorded.')]));
  }
  draw(data);
  main.append(facts, section('members', 'Members', members),
    section('messages', 'Messages', messages));
  every(REFRESH_MS, async () => {
    try {
      const d = await read(path);
      if (ctx.alive()) draw(d);
    } catch (e) {
      if (!(e instanceof NeedToken)) throw e;
    }
  });
}
