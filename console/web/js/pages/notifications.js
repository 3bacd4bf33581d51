// Notifications: every notification of the signed-in person, newest first
// (or unread only), each opening the page it concerns and marked read on
// request. The header's bell shows the latest and the unread count.

import { get, post, query } from '../api.js';
import { h, time, badge, errorBox, notice } from '../dom.js';
import { pagedList, withParams, timeOf, text } from '../list.js';
import { refHref, unread } from '../bell.js';

const kinds = { ticket_escalated: 'Ticket escalated', cve_update: 'Watched CVE changed' };

export async function render(ctx) {
  const only = ctx.query.get('unread') === 'true';
  const message = h('div', { 'aria-live': 'polite' });
  const markRead = async (n, button) => {
    button.disabled = true;
    try {
      await post(`/notifications/${encodeURIComponent(n.id)}/read`, {});
      unread(true);
      await list.reload({ quiet: true });
      message.replaceChildren(notice(`“${n.title}” is marked read.`));
    } catch (err) {
      message.replaceChildren(errorBox(err));
      button.disabled = false;
    }
  };
  const list = pagedList({
    caption: 'Notifications', limit: 25, what: 'notifications', natural: 'newest first',
    sort: { key: 'created_at', order: 'desc' },
    emptyMessage: only ? 'No unread notifications.' : 'No notifications yet. Escalated tickets and changes to the CVEs you watch appear here.',
    fetch: ({ offset, limit }) => get('/notifications' + query({ unread: only ? 'true' : '', limit, offset })),
    columns: [
      { key: 'title', label: 'Notification', first: 'asc', sort: (n) => text(n.title), cell: (n) => {
        const href = refHref(n.ref);
        return [href ? h('a', { href }, n.title) : h('strong', {}, n.title), n.body ? h('div', { class: 'small' }, n.body) : null];
      } },
      { key: 'kind', label: 'Kind', first: 'asc', sort: (n) => kinds[n.kind] || n.kind, cell: (n) => kinds[n.kind] || n.kind },
      { key: 'read', label: 'Read', first: 'asc', sort: (n) => (n.read ? 1 : 0), cell: (n) => (n.read ? 'Read'
        : [badge('new'), ' ', h('button', { type: 'button', class: 'secondary small', 'aria-label': `Mark read: ${n.title}`, onclick: (ev) => markRead(n, ev.currentTarget) }, 'Mark read')]) },
      { key: 'created_at', label: 'Received', sort: (n) => timeOf(n.created_at), server: (order) => (order === 'desc' ? {} : null), cell: (n) => time(n.created_at),
        descWords: 'newest first', ascWords: 'oldest first' },
    ],
  });
  const toggle = h('input', { type: 'checkbox', id: 'unread-only', checked: only,
    onchange: () => ctx.navigate(withParams({ unread: toggle.checked ? 'true' : '', page: '' })) });
  list.reload();
  return h('div', {},
    h('h1', {}, 'Notifications'),
    h('div', { class: 'field check' }, toggle, h('label', { for: 'unread-only' }, 'Unread only')),
    message,
    list.node);
}
