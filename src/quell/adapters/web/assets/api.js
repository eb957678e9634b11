// quell's JSON API (docs/http.md) and the page's login. The token typed in the form goes out
// once, as a bearer header on POST /v1/session, which answers with an HttpOnly session cookie:
// the script never keeps the token nor sees the cookie. Requests that change something carry
// the X-Quell-Csrf header, which quell asks of every such request the cookie authenticates.

import {h, say} from './dom.js';
import {stopRefresh} from './refresh.js';

const tokenArea = document.getElementById('token-area');

let pendingAction = null; // an action waiting for the login form
let redraw = () => {}; // the router's render, run when the page logs in or out
let loggedIn = false; // whether this page's session cookie was accepted (GET /v1/session)

// The router registers its render here (the router imports the pages, which import this).
export function onTokenChange(fn) {
  redraw = fn;
}

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

// Thrown by a read the server refused for want of a login: the view stops, the form shows.
export class NeedToken extends Error {}

async function api(method, path, body, token) {
  const headers = {Accept: 'application/json'};
  if (token) headers.Authorization = 'Bearer ' + token;
  if (method !== 'GET') headers['X-Quell-Csrf'] = '1';
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res;
  try {
    // 'same-origin': the session cookie rides along to quell itself and nowhere else.
    res = await fetch(path, {method, headers, credentials: 'same-origin', cache: 'no-store',
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

// A read for the view: a 401 shows the login form and stops the view.
export async function read(path) {
  try {
    return await api('GET', path);
  } catch (e) {
    if (e.status === 401) {
      stopRefresh(); // no refresh behind the form: it would ask again every 5 s
      loggedIn = false;
      showTokenForm('This quell needs its token to show anything; log in once and every link '
        + 'opens directly.');
      throw new NeedToken();
    }
    throw e;
  }
}

// An action (ack, resolve, silence, ...). A 401 brings the login form, and the action runs
// once the token is accepted; a refused token is said and leaves the screen as it was.
export async function act(what, method, path, body, done) {
  let data;
  try {
    data = await api(method, path, body);
  } catch (e) {
    if (e.status === 401) {
      pendingAction = () => act(what, method, path, body, done);
      loggedIn = false;
      showTokenForm(what + ' needs you to log in with the token.');
    } else {
      say(what + ' failed: ' + e.message);
    }
    return;
  }
  await done(data);
}

// Trades `token` for the session cookie; false (said in the form and the notice) if refused.
async function logIn(token) {
  try {
    await api('POST', '/v1/session', undefined, token);
  } catch (e) {
    const why = e.status === 401 ? 'The token was refused; enter it again.'
      : 'Logging in failed: ' + e.message;
    document.getElementById('token-form-h').textContent = why;
    say(e.status === 401 ? 'The token was refused.' : why);
    return false;
  }
  loggedIn = true;
  return true;
}

// A form already shown stays, with what is typed in it: an action's 401 can arrive after the
// user started typing into the form a refused token left (redrawing the header here emptied
// their input under them). A new form replaces the header's corner, "Log out" included.
function showTokenForm(message) {
  const shown = document.getElementById('token-form');
  if (shown) {
    document.getElementById('token-form-h').textContent = message;
    document.getElementById('token').focus();
    return;
  }
  const input = h('input', {id: 'token', name: 'token', type: 'password', autocomplete: 'off',
    spellcheck: 'false', required: true});
  const form = h('form', {id: 'token-form'},
    h('p', {id: 'token-form-h'}, message),
    h('label', {for: 'token'}, 'API token'), input,
    h('button', {type: 'submit'}, 'Log in'),
    h('button', {type: 'button', onclick: () => { pendingAction = null; drawTokenArea(); }},
      'Cancel'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const token = input.value.trim();
    if (!token || !(await logIn(token))) return;
    input.value = '';
    drawTokenArea();
    say('Logged in.');
    const action = pendingAction;
    pendingAction = null;
    if (action) action(); else redraw(true);
  });
  tokenArea.replaceChildren(form);
  input.focus();
}

// The header's login corner: "Log out" while the session cookie is accepted, else nothing.
export function drawTokenArea() {
  tokenArea.replaceChildren();
  if (!loggedIn) return;
  tokenArea.append(h('button', {type: 'button', id: 'log-out', onclick: async () => {
    try {
      await api('DELETE', '/v1/session');
    } catch (e) {
      say('Logging out failed: ' + e.message);
      return;
    }
    loggedIn = false;
    drawTokenArea(); // the button goes with the session
    say('Logged out.');
    redraw(false);
  }}, 'Log out'));
}

// Asks quell whether this page is logged in (its cookie is HttpOnly: the script cannot see it).
export async function checkSession() {
  try {
    const data = await api('GET', '/v1/session');
    loggedIn = data && data.auth === 'session';
  } catch {
    loggedIn = false;
  }
  drawTokenArea();
}
