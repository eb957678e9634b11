// quell's JSON API (docs/http.md) and its token. The token lives in
// sessionStorage["quell.token"] and goes out only as a bearer header, never in a cookie.

import {h, say} from './dom.js';
import {stopRefresh} from './refresh.js';

const TOKEN_KEY = 'quell.token';
const tokenArea = document.getElementById('token-area');

let pendingAction = null; // an action waiting for the token form
let redraw = () => {}; // the router's render, run when a token is given or forgotten

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

// Thrown by a read the server refused for want of a token: the view stops, the form shows.
export class NeedToken extends Error {}

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
export async function read(path) {
  try {
    return await api('GET', path);
  } catch (e) {
    if (e.status === 401) {
      stopRefresh(); // no refresh behind the form: it would ask again every 5 s
      showTokenForm(storedToken() ? 'The token was refused; enter it again.'
        : 'This quell needs its token to show anything.');
      throw new NeedToken();
    }
    throw e;
  }
}

// An action (ack, resolve, silence, ...). Without a stored token the form asks for one first
// and the action runs once it is given; a 401 says so and leaves the screen as it was.
export async function act(what, method, path, body, done) {
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
    if (action) action(); else redraw(true);
  });
  tokenArea.replaceChildren(form);
  input.focus();
}

// The header's token corner: "Forget token" while one is stored, else nothing.
export function drawTokenArea() {
  tokenArea.replaceChildren();
  if (!storedToken()) return;
  tokenArea.append(h('button', {type: 'button', id: 'forget-token', onclick: () => {
    sessionStorage.removeItem(TOKEN_KEY);
    drawTokenArea(); // the button goes with the token
    say('The token is forgotten.');
    redraw(false);
  }}, 'Forget token'));
}
