// Events: the organization's security events, newest first, filtered by
// severity, type, time range and sort order. The filters live in the
// address (so links such as /events?type=blocked_connection work and Back
// undoes a filter); the page re-renders from the address on each change.

import { query } from '../api.js';
import { h, table, time, badge, form, wide, words, Words, clip, filteredList, choices } from '../dom.js';
import { severities } from '../vocab.js';

const LIMIT = 50;
const types = ['threat_detected', 'blocked_connection', 'dns_anomaly', 'policy_violation'];
const sorts = [['', 'Newest first'], ['asc', 'Oldest first'], ['severity', 'Most severe first']];

const pad = (n) => String(n).padStart(2, '0');

// toLocal turns an RFC 3339 time into a datetime-local value in the
// reader's zone ('' when it does not parse).
function toLocal(iso) {
  const d = iso ? new Date(iso) : null;
  if (!d || isNaN(d)) return '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

// toISO turns a datetime-local value back into RFC 3339 UTC to the second.
function toISO(local) {
  const d = local ? new Date(local) : null;
  return d && !isNaN(d) ? d.toISOString().replace(/\.\d+Z$/, 'Z') : '';
}

export async function render(ctx) {
  const q = ctx.query;
  // The address holds the API's own values (sort and order combined in
  // one control here).
  const f = { severity: q.get('severity') || '', type: q.get('type') || '', from: q.get('from') || '', to: q.get('to') || '',
    sort: q.get('sort') || '', order: q.get('order') || '', offset: q.get('offset') || '' };
  const sortValue = f.sort === 'severity' ? 'severity' : f.order === 'asc' ? 'asc' : '';
  const go = (params) => ctx.navigate('/events' + query(params));

  const filters = form({
    className: 'inline toolbar',
    submit: 'Apply',
    fields: [
      { name: 'severity', label: 'Severity', type: 'select', value: f.severity,
        options: choices([['', 'Any'], ['critical,high', 'High or critical'], ...severities.map((s) => [s, Words(s)])], f.severity) },
      { name: 'type', label: 'Type', type: 'select', value: f.type, options: choices([['', 'Any'], ...types.map((t) => [t, words(t)])], f.type) },
      { name: 'from', label: 'From (your time)', type: 'datetime-local', value: toLocal(f.from) },
      { name: 'to', label: 'To (your time)', type: 'datetime-local', value: toLocal(f.to) },
      { name: 'sort', label: 'Order', type: 'select', value: sortValue, options: sorts },
    ],
    onSubmit: async (v) => go({ severity: v.severity, type: v.type, from: toISO(v.from), to: toISO(v.to),
      sort: v.sort === 'severity' ? 'severity' : '', order: v.sort === 'asc' ? 'asc' : '' }),
  });
  filters.setAttribute('role', 'search');
  filters.setAttribute('aria-label', 'Filter events');
  filters.inputs.from.step = '1';
  filters.inputs.to.step = '1';
  const filtered = f.severity || f.type || f.from || f.to;

  const list = filteredList({ path: '/events', f, limit: LIMIT, filters, go, show: (res) =>
    wide('60rem', table([
      { label: 'Time', cell: (e) => time(e.timestamp) },
      { label: 'Severity', cell: (e) => badge(e.severity) },
      { label: 'Type', cell: (e) => words(e.type) },
      { label: 'Source', cell: (e) => e.source },
      { label: 'Asset', cell: (e) => h('span', { class: 'mono' }, e.asset) },
      { label: 'Message', cell: message },
      { label: 'Indicator', cell: indicator },
    ], res.data, filtered ? 'No events match these filters.' : 'No events yet. Events sent to POST /api/events or a webhook appear here.', 'Security events')) });

  return h('div', {},
    h('h1', {}, 'Events'),
    filters,
    filtered ? h('p', { class: 'small' }, h('a', { href: '/events' }, 'Clear filters')) : null,
    list);
}

// message shows the event's text, the alert it joined, and a line of its
// details (the whole JSON on hover).
function message(e) {
  const d = e.details && typeof e.details === 'object' ? e.details : null;
  const line = d ? Object.entries(d).filter(([, v]) => v === null || typeof v !== 'object').map(([k, v]) => `${k}: ${v}`).join(' · ') : '';
  return [
    e.message,
    e.alert_id ? [' ', h('a', { href: '/alerts/' + encodeURIComponent(e.alert_id), class: 'small' }, 'Alert →')] : null,
    line ? h('div', { class: 'small muted', title: JSON.stringify(d) }, clip(line, 160)) : null,
  ];
}

// indicator skips repeating the message, which it often is.
function indicator(e) {
  if (!e.indicator) return h('span', { class: 'muted' }, '—');
  if (e.indicator === e.message) return h('span', { class: 'muted small' }, 'same as message');
  return h('span', { class: 'mono' }, e.indicator);
}

