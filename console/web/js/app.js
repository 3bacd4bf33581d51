// The console's shell: who is signed in, the routes, the navigation and
// the page frame. Each page is a module under pages/, loaded when visited.

import { get, post, whenSignedOut, forgetMembers, actIn } from './api.js';
import { h, errorBox, loading } from './dom.js';
import { bell, forgetUnread } from './bell.js';
import { forgetKeys } from './people.js';
import { switcher, banner, staffOf, places } from './org.js';

// Routes, in the order the navigation lists them. auth false: a page for
// people who are not signed in (it works signed in too). nav: its label.
// staff: listed only for a provider's admins and technicians; provider:
// not in a client (outreach is its provider's).
const routes = [
  { path: '/', page: 'dashboard', title: 'Dashboard', nav: 'Dashboard' },
  { path: '/clients', page: 'clients', view: 'fleet', title: 'Clients', nav: 'Clients', staff: true },
  { path: '/clients/alerts', page: 'clients', view: 'alerts', title: 'Alerts across clients', staff: true },
  { path: '/events', page: 'events', title: 'Events', nav: 'Events' },
  { path: '/events/:id', page: 'events', view: 'detail', title: 'Event' },
  { path: '/alerts', page: 'alerts', title: 'Alerts', nav: 'Alerts' },
  { path: '/alerts/:id', page: 'alerts', view: 'detail', title: 'Alert' },
  { path: '/incidents', page: 'incidents', title: 'Incidents', nav: 'Incidents' },
  { path: '/incidents/:id', page: 'incidents', view: 'detail', title: 'Incident' },
  { path: '/detection', page: 'detection', title: 'Detection rules', nav: 'Detection rules' },
  { path: '/detection/rules/:id', page: 'detection', view: 'rule', title: 'Detection rule' },
  { path: '/threats', page: 'threats', title: 'Threats', nav: 'Threats' },
  { path: '/agents', page: 'agents', title: 'Agents', nav: 'Agents' },
  { path: '/agents/runs/:id', page: 'agents', view: 'run', title: 'Agent run' },
  { path: '/tickets', page: 'tickets', title: 'Tickets', nav: 'Tickets' },
  { path: '/tickets/:id', page: 'tickets', view: 'detail', title: 'Ticket' },
  { path: '/compliance', page: 'compliance', title: 'Compliance', nav: 'Compliance' },
  { path: '/compliance/reports/:id', page: 'compliance', view: 'report', title: 'Compliance report' },
  { path: '/cve-watchlist', page: 'intel', view: 'watchlist', title: 'CVE watchlist', nav: 'CVE watchlist' },
  { path: '/cve-watchlist/:id', page: 'intel', view: 'entry', title: 'Watched CVE' },
  { path: '/findings', page: 'findings', title: 'Findings', nav: 'Findings' },
  { path: '/assets', page: 'intel', view: 'assets', title: 'Assets', nav: 'Assets' },
  { path: '/leads', page: 'leads', title: 'Leads', nav: 'Leads', provider: true },
  { path: '/leads/:id', page: 'leads', view: 'detail', title: 'Lead' },
  { path: '/settings', page: 'settings', title: 'Settings', nav: 'Settings' },
  { path: '/settings/notifications', page: 'alerting', view: 'channels', title: 'Notifications: contact points' },
  { path: '/settings/notifications/rules', page: 'alerting', view: 'rules', title: 'Notifications: routing rules' },
  { path: '/settings/notifications/deliveries', page: 'alerting', view: 'deliveries', title: 'Notifications: delivery log' },
  { path: '/settings/notifications/suppressions', page: 'alerting', view: 'suppressions', title: 'Notifications: suppressions' },
  { path: '/notifications', page: 'notifications', title: 'Notifications' },
  { path: '/login', page: 'auth', view: 'login', title: 'Sign in', auth: false },
  { path: '/register', page: 'auth', view: 'register', title: 'Create an account', auth: false },
  { path: '/forgot-password', page: 'auth', view: 'forgot', title: 'Forgot password', auth: false },
  { path: '/reset-password', page: 'auth', view: 'reset', title: 'Choose a new password', auth: false },
  { path: '/verify-email', page: 'auth', view: 'verify', title: 'Confirm your address', auth: false },
];

const state = { me: null, health: null, reason: '' };

function match(pathname) {
  for (const r of routes) {
    const want = r.path.split('/');
    const got = pathname.split('/');
    if (want.length !== got.length) continue;
    const params = {};
    if (want.every((seg, i) => (seg.startsWith(':') ? (params[seg.slice(1)] = decodeURIComponent(got[i])) : seg === got[i]))) {
      return { route: r, params };
    }
  }
  return null;
}

// navigate shows another page; replace keeps it out of the history. page
// is what the app itself tells the page (history.state), never taken from
// the address: a link cannot put words on it.
export function navigate(to, replace = false, page = null) {
  if (replace) history.replaceState(page, '', to);
  else history.pushState(page, '', to);
  window.scrollTo(0, 0);
  render();
}

// safeNext accepts only a path of this site to go to after signing in.
export function safeNext(next) {
  return typeof next === 'string' && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}

const roleRank = { member: 1, technician: 1, admin: 2 };

// can tells whether the signed-in user has at least a role.
export const can = (role) => !!state.me && (roleRank[state.me.role] || 0) >= (roleRank[role] || 0);

// signedIn: the server left its marker cookie (no secret in it) beside
// the session cookie, which scripts cannot see.
const signedIn = () => document.cookie.split('; ').includes('garrison_signed_in=1');

// forget drops what was read for the account signed in until now.
function forget() {
  forgetMembers();
  forgetKeys();
  forgetUnread();
}

// refreshMe reads the session again; fresh: a new one (a sign-in), which
// acts in its own organization, not the one this tab showed.
export async function refreshMe(fresh = false) {
  forget(); // another account, or another role, may see other people
  if (fresh || !signedIn()) actIn('');
  if (!signedIn()) {
    state.me = null;
    return null;
  }
  try {
    state.me = await me();
  } catch (err) {
    state.me = null;
    // An ended session: the sign-in page says why, in the API's words.
    if (err.status === 401) state.reason = err.message;
  }
  actIn(state.me ? state.me.org_id : '');
  return state.me;
}

// me reads the session, in the organization this tab shows; one it may no
// longer act in (404) gives way to the session's own.
async function me() {
  try {
    return (await get('/auth/me', { public: true })).data;
  } catch (err) {
    if (err.status !== 404) throw err;
    actIn('');
    return (await get('/auth/me', { public: true })).data;
  }
}

// switchOrg acts in another organization (POST /auth/switch-org: the
// session cookie is replaced) and shows a page there: to, or this page
// (its list, for one item, which belongs to the organization left).
async function switchOrg(orgID, to) {
  await post('/auth/switch-org', { org_id: orgID });
  actIn(orgID);
  await refreshMe();
  const m = match(location.pathname);
  const here = !m || (m.route.staff && state.me?.organization?.kind !== 'provider') ? '/' : Object.keys(m.params).length ? '/' + location.pathname.split('/')[1] : location.pathname + location.search;
  navigate(to || here, !to);
}

// isStaff: the person works with clients (a provider's admin or technician).
const isStaff = () => !!state.me && staffOf(state.me).length > 0;

export const health = () => state.health;

whenSignedOut((message) => {
  state.me = null;
  actIn('');
  forget();
  const here = location.pathname + location.search;
  const next = here.startsWith('/login') ? '/' : here;
  navigate('/login?' + new URLSearchParams({ next }).toString(), true, { reason: message });
});

async function signOut() {
  try { await post('/auth/logout', {}, { public: true }); } catch { /* the session is gone either way */ }
  state.me = null;
  actIn('');
  forget();
  navigate('/login', false, { reason: 'You have signed out.' });
}

function shell(active) {
  const nav = routes.filter((r) => r.nav && (!r.staff || isStaff()) && (!r.provider || state.me.organization?.kind !== 'client'));
  const menuId = 'nav-list';
  const toggle = h('button', { type: 'button', class: 'menu-toggle', 'aria-expanded': 'false', 'aria-controls': menuId }, 'Menu');
  const current = (r) => !!active && (r.path === '/' ? active.path === '/' : active.path === r.path || active.path.startsWith(r.path + '/'));
  const list = h('ul', { id: menuId }, nav.map((r) => h('li', {}, h('a', { href: r.path, 'aria-current': current(r) ? 'page' : null }, r.nav))));
  toggle.addEventListener('click', () => {
    const open = toggle.getAttribute('aria-expanded') !== 'true';
    toggle.setAttribute('aria-expanded', String(open));
    list.classList.toggle('open', open);
  });
  return h('header', { class: 'top' },
    h('a', { class: 'brand', href: '/' }, h('img', { src: iconURL(), alt: '', width: 24, height: 24 }), 'Garrison'),
    h('nav', { 'aria-label': 'Main' }, toggle, list),
    h('div', { class: 'who' },
      switcher(state.me, (id) => switchOrg(id)),
      bell(),
      // With a switcher, it names the organization, and its panel the person.
      places(state.me).count > 1 ? null : h('span', { class: 'who-name', title: state.me.email }, state.me.name, ' · ', state.me.org),
      h('button', { type: 'button', class: 'secondary small', onclick: signOut }, 'Sign out')),
    banner(state.me, (id) => switchOrg(id)));
}

// setTitle names the page, and the organization when there are several.
function setTitle(t) {
  document.title = t + (state.me && places(state.me).count > 1 ? ' · ' + state.me.org : '') + ' · Garrison';
}

const iconURL = () => document.querySelector('link[rel=icon]').getAttribute('href');

let renders = 0;

async function render() {
  const mine = ++renders;
  const app = document.getElementById('app');
  const m = match(location.pathname);
  if (!m) {
    app.replaceChildren(frame(null, h('div', { class: 'page' }, h('h1', {}, 'Page not found'), h('p', {}, 'Nothing lives at this address. ', h('a', { href: '/' }, 'Go to the dashboard')))));
    return;
  }
  const { route, params } = m;
  if (route.auth !== false && !state.me) {
    const reason = state.reason;
    state.reason = '';
    navigate('/login?' + new URLSearchParams({ next: location.pathname + location.search }).toString(), true, reason ? { reason } : null);
    return;
  }
  setTitle(route.title);
  const main = h('div', { class: 'page' }, loading());
  app.replaceChildren(frame(route, main));
  try {
    const mod = await import(`./pages/${route.page}.js`);
    if (mine !== renders) return;
    const ctx = { me: state.me, params, query: new URLSearchParams(location.search), view: route.view || 'index', navigate, can, refreshMe, health, setTitle, switchOrg };
    const node = await mod.render(ctx);
    if (mine !== renders) return;
    main.replaceChildren(node);
  } catch (err) {
    if (mine !== renders) return;
    main.replaceChildren(h('h1', {}, route.title), errorBox(err));
  }
  const target = document.getElementById('main');
  if (target && renders > 1) target.focus({ preventScroll: true });
}

function frame(route, content) {
  const main = h('main', { id: 'main', tabindex: '-1' }, content);
  if (!state.me || (route && route.auth === false && !state.me)) return h('div', { class: 'bare' }, main);
  return h('div', { class: 'layout' }, shell(route), main);
}

// Links inside the console move between pages without reloading.
document.addEventListener('click', (ev) => {
  const a = ev.target.closest('a');
  if (!a || ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
  if (a.target || a.hasAttribute('download')) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || url.pathname.startsWith('/api/') || url.pathname.startsWith('/assets/')) return;
  ev.preventDefault();
  navigate(url.pathname + url.search + url.hash);
});
window.addEventListener('popstate', render);

(async () => {
  // Both at once: every reload waits for them before the page.
  const health = get('/dashboard/health', { public: true }).then((r) => r.data, () => null);
  const m = match(location.pathname);
  if (m) import(`./pages/${m.route.page}.js`).catch(() => {}); // fetched meanwhile; render reports a failure
  await refreshMe();
  state.health = await health;
  render();
})();
