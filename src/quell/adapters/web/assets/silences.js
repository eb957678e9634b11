// /silences: the active silences with Expire, and a form adding one. A text without `*` silences
// that key exactly. A text with `*` may be a glob: before anything is saved the form shows the
// open incidents it matches (GET /v1/silences/preview), and the operator saves it as a pattern,
// as the one key spelled with `*`, or not at all.

import {NeedToken, act, read} from './api.js';
import {emptyRow, enc, field, h, main, say, table} from './dom.js';
import {when} from './time.js';

const PREVIEW_KEYS = 20;

function previewBox(pattern, data, save) {
  const more = data.matched - data.keys.length;
  const count = data.matched === 1 ? '1 open incident' : data.matched + ' open incidents';
  return h('section', {id: 'silence-preview', 'aria-labelledby': 'silence-preview-h',
    'data-matched': data.matched},
  h('h2', {id: 'silence-preview-h', tabindex: -1}, 'Preview: ', h('code', {}, pattern),
    ' matches ' + count),
  h('p', {class: 'hint'}, 'As a pattern (* matches any run of characters) it also silences ' +
    'every matching key that opens later.'),
  data.keys.length ? h('ul', {id: 'silence-preview-keys'},
    data.keys.map((k) => h('li', {class: 'mono'}, k))) : null,
  more > 0 ? h('p', {}, 'and ' + more + ' more') : null,
  h('div', {class: 'buttons'},
    h('button', {type: 'button', onclick: () => save('pattern')}, 'Save pattern silence'),
    h('button', {type: 'button', onclick: () => save('key')}, 'Only this exact key'),
    h('button', {type: 'button', class: 'danger', onclick: () => save(null)}, 'Cancel')));
}

export async function silencesPage(ctx) {
  const pattern = h('input', {id: 's-pattern', name: 'pattern', required: true,
    autocomplete: 'off', 'aria-describedby': 's-pattern-hint'});
  const duration = h('input', {id: 's-for', name: 'for', value: '1h', required: true, size: 6,
    autocomplete: 'off'});
  const reason = h('input', {id: 's-reason', name: 'reason', required: true, autocomplete: 'off'});
  const form = h('form', {class: 'add', 'aria-label': 'Add a silence'},
    field('s-pattern', 'Key or pattern', pattern,
      'a key, or a glob with * (e.g. acme:*), previewed before it is saved'),
    field('s-for', 'Duration', duration), field('s-reason', 'Reason', reason),
    h('button', {type: 'submit'}, 'Add silence'));
  const preview = h('div', {id: 'silence-preview-area'});
  const holder = h('div');
  main.append(h('h1', {tabindex: -1}, 'Silences'), form, preview, h('h2', {}, 'Active silences'),
    holder);

  async function refresh() {
    const data = await read('/v1/silences');
    if (!ctx.alive()) return;
    const rows = (data.silences || []).map((s) => h('tr', {'data-id': s.id,
      'data-match': s.match},
    h('td', {class: 'num'}, s.id), h('td', {}, s.match === 'exact' ? 'key' : 'pattern'),
    h('td', {class: 'mono'}, s.match === 'exact' ? s.key : s.pattern),
    h('td', {}, when(s.expires_at)), h('td', {class: 'wrap'}, s.reason),
    h('td', {}, s.created_by), h('td', {}, when(s.created_at)),
    h('td', {}, h('button', {type: 'button', 'aria-label': 'Expire silence ' + s.id,
      onclick: () => act('Expire', 'DELETE', '/v1/silences/' + s.id, undefined, async () => {
        say('Silence ' + s.id + ' expired.');
        await refresh();
      })}, 'Expire'))));
    holder.replaceChildren(table('silences', 'Active silences', ['Id', 'Match', 'Key or pattern',
      'Expires', 'Reason', 'By', 'Created', 'Actions'], rows.length ? rows : [emptyRow(8, 'None.')]));
  }

  // `kind` is 'key' (exactly this key) or 'pattern' (a glob), the field the API takes.
  function save(kind, text) {
    act('Add silence', 'POST', '/v1/silences', {[kind]: text, for: duration.value.trim(),
      reason: reason.value.trim()}, async (data) => {
      say('Silence ' + (data.silence?.id ?? '') + ' added.');
      preview.replaceChildren();
      pattern.value = '';
      reason.value = '';
      await refresh();
    });
  }
  // What is previewed belongs to the text it was read for: any edit takes it away.
  pattern.addEventListener('input', () => preview.replaceChildren());
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const text = pattern.value.trim();
    if (!text.includes('*')) {
      save('key', text);
      return;
    }
    let data;
    try {
      data = await read('/v1/silences/preview?pattern=' + enc(text) + '&limit=' + PREVIEW_KEYS);
    } catch (err) {
      if (!(err instanceof NeedToken)) say('Preview failed: ' + err.message);
      return;
    }
    if (!ctx.alive() || pattern.value.trim() !== text) return;
    preview.replaceChildren(previewBox(text, data, (kind) => {
      if (kind) save(kind, text);
      else preview.replaceChildren();
    }));
    document.getElementById('silence-preview-h').focus();
  });
  await refresh();
}
