// Element helpers shared by every page: building elements, the notice, tables, form fields.

export const main = document.getElementById('main');
const notice = document.getElementById('notice');

// h('td', {class: 'x', 'data-key': k}, 'text', node, [more]): an element. `on*` are listeners.
export function h(tag, attrs, ...children) {
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

// Announces `text` in the polite live region (#notice).
export function say(text) {
  // Emptied first so the same message twice is announced twice.
  notice.textContent = '';
  setTimeout(() => { notice.textContent = text; }, 20);
}

export const enc = encodeURIComponent;
export const incidentHref = (key) => '/incidents/' + enc(key);
// A group's page: its channel and group key, each one encoded path segment.
export const groupHref = (channel, groupKey) => '/groups/' + enc(channel) + '/' + enc(groupKey);

export function labelsText(labels) {
  return Object.entries(labels || {}).map(([k, v]) => k + '=' + v).join(', ');
}

export function yesNo(v) {
  return v === null || v === undefined ? '—' : v ? 'yes' : 'no';
}

// The sign repeats the word for the eye; `id` names the word alone (#incident-status).
export function statusBadge(status, id) {
  const sign = {open: '●', resolved: '✓'}[status] || '○';
  return h('span', {class: 'badge st-' + status}, h('span', {'aria-hidden': 'true'}, sign + ' '),
    h('span', {id}, status));
}

// A table in its own labelled, focusable scroll box (no sideways scroll of the page).
export function table(id, caption, headers, rows) {
  return h('div', {class: 'table-wrap', role: 'region', 'aria-label': caption, tabindex: 0},
    h('table', {id},
      h('caption', {class: 'visually-hidden'}, caption),
      h('thead', {}, h('tr', {}, headers.map((t) => h('th', {scope: 'col'}, t)))),
      h('tbody', {}, rows)));
}

export function emptyRow(span, text) {
  return h('tr', {class: 'empty'}, h('td', {colspan: span}, text));
}

export function section(id, title, ...children) {
  return h('section', {id, 'aria-labelledby': id + '-h'}, h('h2', {id: id + '-h'}, title),
    children);
}

export function field(id, label, input, hint) {
  // The hint between label and control keeps the controls of a row on one line.
  return h('div', {class: 'field'}, h('label', {for: id}, label),
    hint ? h('span', {class: 'hint', id: id + '-hint'}, hint) : null, input);
}
