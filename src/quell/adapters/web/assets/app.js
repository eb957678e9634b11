// quell's operator page, the router: it reads the path and runs that page's module, which
// fetches quell's JSON API (docs/http.md) and draws the page. Links inside the page change the
// path with pushState. No framework; each module under /assets/ is served as written.

import {NeedToken, checkSession, onTokenChange} from './api.js';
import {h, main, say} from './dom.js';
import {groupPage} from './group.js';
import {incidentPage} from './incident.js';
import {incidentsPage} from './incidents.js';
import {maintenancePage} from './maintenance.js';
import {outboxPage} from './outbox.js';
import {stopRefresh} from './refresh.js';
import {silencesPage} from './silences.js';
import {sourcesPage} from './sources.js';

const pages = [
  [/^\/$/, incidentsPage, 'Incidents'],
  [/^\/incidents\/(.+)$/, incidentPage, 'Incident'],
  [/^\/groups\/([^/]+)\/(.+)$/, groupPage, 'Group'],
  [/^\/outbox$/, outboxPage, 'Outbox'],
  [/^\/silences$/, silencesPage, 'Silences'],
  [/^\/maintenance$/, maintenancePage, 'Maintenance'],
  [/^\/sources$/, sourcesPage, 'Sources'],
];

let view = 0; // bumped by each render: an answer for an older view is dropped

async function render(focusHeading) {
  const mine = ++view;
  stopRefresh();
  const path = location.pathname;
  for (const a of document.querySelectorAll('nav[aria-label="Sections"] a')) {
    const here = a.getAttribute('href') === path ||
      (a.getAttribute('href') === '/' &&
        (path.startsWith('/incidents/') || path.startsWith('/groups/')));
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
    const text = 'Could not load this page: ' + e.message;
    main.append(h('p', {class: 'error'}, text));
    say(text);
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

onTokenChange(render);
checkSession().then(() => render(false));
