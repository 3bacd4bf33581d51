// The one way the console talks to the server: the public REST API, with
// the session in an HttpOnly cookie the browser sends by itself and the
// header that tells the server this request comes from the console.

export class ApiError extends Error {
  constructor(status, code, message, fields, line) {
    super(message || `Request failed (${status})`);
    this.status = status;
    this.code = code || '';
    this.fields = fields || [];
    this.line = line || 0; // the line of a submitted text at fault (a detection rule's YAML)
  }
}

let onUnauthorized = () => {};

// whenSignedOut is called with the server's message when a request that
// needed a session was refused with 401.
export function whenSignedOut(fn) { onUnauthorized = fn; }

// The organization this tab shows. The session cookie is shared by every
// tab, and switching in one moves the cookie's organization: each request
// names the one this tab shows (X-Garrison-Org), so a tab left open, or
// reloaded (the tab's own sessionStorage keeps it), never acts in another
// organization than its header says. Not on the session's own routes
// (/auth/…, but /auth/me), which act in the cookie's.
const tabKey = 'garrison-org';
let actingIn = '';
try { actingIn = sessionStorage.getItem(tabKey) || ''; } catch { /* no storage: the cookie's */ }
export function actIn(orgID) {
  actingIn = orgID || '';
  try { if (actingIn) sessionStorage.setItem(tabKey, actingIn); else sessionStorage.removeItem(tabKey); } catch { /* kept in memory */ }
}

export async function api(method, path, body, opts = {}) {
  const headers = { 'X-Garrison-Console': '1', Accept: 'application/json' };
  if (actingIn && (!path.startsWith('/auth/') || path === '/auth/me')) headers['X-Garrison-Org'] = actingIn;
  const init = { method, headers, credentials: 'same-origin', cache: 'no-store' };
  if (opts.text !== undefined) {
    headers['Content-Type'] = opts.contentType || 'text/plain';
    init.body = opts.text;
  } else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch('/api' + path, init);
    // A read refused by the rate limit is tried once more when the server
    // says it may be (a busy page can pass the per-minute allowance).
    const wait = Number(res.headers.get('Retry-After'));
    if (res.status === 429 && method === 'GET' && wait > 0 && wait <= 10) {
      await new Promise((r) => setTimeout(r, wait * 1000));
      res = await fetch('/api' + path, init);
    }
  } catch (e) {
    throw new ApiError(0, 'network', 'The server cannot be reached. Check the connection and try again.');
  }
  if (opts.raw) {
    if (!res.ok) throw await errorOf(res);
    return res;
  }
  if (res.status === 204) return {};
  const data = await res.json().catch(() => null);
  if (!res.ok) {
    const err = errorFrom(res, data);
    if (res.status === 401 && !opts.public) onUnauthorized(err.message);
    throw err;
  }
  return data || {};
}

async function errorOf(res) {
  return errorFrom(res, await res.json().catch(() => null));
}

function errorFrom(res, data) {
  if (data && data.success === false) return new ApiError(res.status, data.code, data.error, data.fields, data.line);
  return new ApiError(res.status, 'http_' + res.status, `The server answered ${res.status} ${res.statusText}.`);
}

export const get = (path, opts) => api('GET', path, undefined, opts);
export const post = (path, body, opts) => api('POST', path, body, opts);
export const patch = (path, body, opts) => api('PATCH', path, body, opts);
export const put = (path, body, opts) => api('PUT', path, body, opts);
export const del = (path, body, opts) => api('DELETE', path, body, opts);

// query builds "?a=1&b=2" from the set values of an object.
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  }
  const s = q.toString();
  return s ? '?' + s : '';
}

// members maps the organization's user ids to their members (GET
// /org/members, a read), for showing people by name; an empty map when it
// cannot be read (not kept: the next call tries again). Kept for a minute,
// pages ask for it often; forgetMembers drops it whenever who is signed in,
// or who the members are, changes.
let membersCache = null;
export function members() {
  if (!membersCache || Date.now() - membersCache.at > 60000) {
    const entry = { at: Date.now() };
    entry.p = get('/org/members?limit=200').then((r) => new Map((r.data || []).map((m) => [m.id, m])), () => {
      if (membersCache === entry) membersCache = null;
      return new Map();
    });
    membersCache = entry;
  }
  return membersCache.p;
}
export function forgetMembers() { membersCache = null; }
