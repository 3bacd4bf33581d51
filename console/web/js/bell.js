// The notifications bell in the header of every page: the number of
// unread notifications (GET /notifications?unread=true&limit=1, its
// pagination.total), and a panel with the latest ones to open or mark
// read. The count is read when a page is shown (at most every 30 s) and
// every minute while the tab is visible, one read at a time.

import { get, post, query } from './api.js';
import { h, time, errorBox, loading, num, uid, disclosure } from './dom.js';

const NS = 'http://www.w3.org/2000/svg';
const svg = (tag, attrs, ...kids) => {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.append(...kids);
  return el;
};

// Notification refs are ids; their prefix says which page shows them.
const refPages = { cvw: '/cve-watchlist/', tkt: '/tickets/', alr: '/alerts/', run: '/agents/runs/', lead: '/leads/' };
export const refHref = (ref) => { const p = refPages[String(ref || '').split('_')[0]]; return p ? p + encodeURIComponent(ref) : null; };

const state = { count: null, at: 0, reading: null, listeners: new Set() };

// unread reads the count again unless it is fresh; one read at a time.
export function unread(force = false) {
  if (state.reading) return state.reading;
  if (!force && state.count !== null && Date.now() - state.at < 30000) return Promise.resolve(state.count);
  state.reading = get('/notifications?unread=true&limit=1').then((r) => {
    state.count = r.pagination.total;
    state.at = Date.now();
    for (const fn of state.listeners) fn(state.count);
    return state.count;
  }, () => state.count).finally(() => { state.reading = null; });
  return state.reading;
}

export function forgetUnread() { state.count = null; state.at = 0; }

let poll = 0;
function startPolling() {
  if (poll) return;
  poll = setInterval(() => { if (!document.hidden && state.listeners.size) unread(true); }, 60000);
}

// bell is the header's button and its panel.
export function bell() {
  const panelId = uid('notes');
  const badgeEl = h('span', { class: 'bell-count', hidden: true, 'aria-hidden': 'true' });
  const label = h('span', { class: 'sr-only' }, 'Notifications');
  const icon = svg('svg', { viewBox: '0 0 24 24', width: 20, height: 20, 'aria-hidden': 'true', focusable: 'false' },
    svg('path', { d: 'M12 3a6 6 0 0 0-6 6v3.6L4.3 15.4A1 1 0 0 0 5.2 17h13.6a1 1 0 0 0 .9-1.6L18 12.6V9a6 6 0 0 0-6-6Zm0 19a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Z', fill: 'currentColor' }));
  const button = h('button', { type: 'button', class: 'bell', 'aria-expanded': 'false', 'aria-controls': panelId, 'data-count': '' }, icon, label, badgeEl);
  const body = h('div', { class: 'bell-body' });
  const heading = h('h2', { id: panelId + '-h', tabindex: '-1' }, 'Notifications');
  const panel = h('div', { id: panelId, class: 'bell-panel', role: 'region', 'aria-labelledby': heading.id, hidden: true },
    h('div', { class: 'bell-head' }, heading, h('button', { type: 'button', class: 'icon', 'aria-label': 'Close notifications', onclick: () => close(true) }, '×')),
    body,
    h('p', { class: 'bell-foot small' }, h('a', { href: '/notifications', onclick: () => close(false) }, 'All notifications →')));
  const wrap = h('div', { class: 'bell-wrap' }, button, panel);

  const show = (n) => {
    button.dataset.count = n === null ? '' : String(n);
    badgeEl.hidden = !n;
    badgeEl.textContent = n > 99 ? '99+' : String(n || '');
    label.textContent = n ? `Notifications, ${num(n)} unread` : 'Notifications, none unread';
  };
  show(state.count);
  const listener = (n) => { if (wrap.isConnected) show(n); else state.listeners.delete(listener); };
  state.listeners.add(listener);
  unread().then(show);
  startPolling();

  async function fill() {
    body.replaceChildren(loading());
    try {
      const res = await get('/notifications' + query({ limit: 8 }));
      body.replaceChildren(res.data.length ? h('ul', { class: 'bell-list' }, res.data.map(item))
        : h('p', { class: 'muted' }, 'No notifications yet. Escalated tickets and changes to the CVEs you watch appear here.'));
    } catch (err) {
      body.replaceChildren(errorBox(err));
    }
  }
  function item(n) {
    const href = refHref(n.ref);
    const read = h('button', { type: 'button', class: 'secondary small', 'aria-label': `Mark read: ${n.title}`, onclick: async () => {
      read.disabled = true;
      try {
        await post(`/notifications/${encodeURIComponent(n.id)}/read`, {});
        li.classList.remove('unread');
        const moved = document.activeElement === read;
        read.replaceWith(h('span', {}, 'Read'));
        if (moved) (li.querySelector('a') || heading).focus();
        unread(true);
      } catch (err) { read.replaceWith(errorBox(err)); }
    } }, 'Mark read');
    const li = h('li', { class: n.read ? '' : 'unread' },
      h('div', {}, href ? h('a', { href, onclick: () => close(false) }, n.title) : h('strong', {}, n.title)),
      n.body ? h('p', { class: 'small' }, n.body.length > 180 ? n.body.slice(0, 177) + '…' : n.body) : null,
      h('div', { class: 'small muted bell-meta' }, time(n.created_at), n.read ? h('span', {}, 'Read') : read));
    return li;
  }

  const panelCtl = disclosure(wrap, button, panel, () => { fill(); heading.focus(); });
  function close(refocus) { panelCtl.close(refocus); }
  return wrap;
}
