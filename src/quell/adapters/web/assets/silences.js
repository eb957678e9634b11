// /silences: the active silences with Expire, and a form adding one.

import {act, read} from './api.js';
import {emptyRow, field, h, main, say, table} from './dom.js';
import {when} from './time.js';

export async function silencesPage(ctx) {
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
