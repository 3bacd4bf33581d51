// Events: the organization's security events, newest first, filtered by
// severity, type, time range and sort order. The filters live in the
// address (so links such as /events?type=blocked_connection work and Back
// undoes a filter); the page re-renders from the address on each change.

import { get, query, ApiError } from '../api.js';
import { h, load, table, time, badge, form, pager, showErrors, wide } from '../dom.js';

const LIMIT = 50;
const severities = ['critical', 'high', 'medium', 'low', 'info'];
const types = ['threat_detected', 'blocked_connection', 'dns_anomaly', 'policy_violation'];
const sorts = [['', 'Newest first'], ['asc', 'Oldest first'], ['severity', 'Most severe first']];

// options lists choices for a select, keeping a value from the address
// that is not among them so the control still shows what is applied.
function options(list, current) {
  const out = [['', 'Any'], ...list];
  if (current && !out.some(([v]) => v === current)) out.push([current, current.replace(/_/g, ' ')]);
  return out;
}

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
        options: options([['critical,high', 'High or critical'], ...severities.map((s) => [s, s[0].toUpperCase() + s.slice(1)])], f.severity) },
      { name: 'type', label: 'Type', type: 'select', value: f.type, options: options(types.map((t) => [t, t.replace(/_/g, ' ')]), f.type) },
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

  const list = h('div');
  load(list, async () => {
    let res;
    try {
      res = await get('/events' + query({ ...f, limit: LIMIT }));
    } catch (err) {
      // A bad filter in the address: say so beside the control too.
      if (err instanceof ApiError && err.fields.length) {
        showErrors(filters, filters.status, err);
        filters.status.replaceChildren();
      }
      throw err;
    }
    return [
      wide('60rem', table([
        { label: 'Time', cell: (e) => time(e.timestamp) },
        { label: 'Severity', cell: (e) => badge(e.severity) },
        { label: 'Type', cell: (e) => e.type.replace(/_/g, ' ') },
        { label: 'Source', cell: (e) => e.source },
        { label: 'Asset', cell: (e) => h('span', { class: 'mono' }, e.asset) },
        { label: 'Message', cell: message },
        { label: 'Indicator', cell: indicator },
      ], res.data, filtered ? 'No events match these filters.' : 'No events yet. Events sent to POST /api/events or a webhook appear here.', 'Security events')),
      res.pagination.total > 0 && pager(res.pagination, (offset) => go({ ...f, offset: offset || '' })),
    ];
  });

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
    line ? h('div', { class: 'small muted', title: JSON.stringify(d) }, line.length > 160 ? line.slice(0, 160) + '…' : line) : null,
  ];
}

// indicator skips repeating the message, which it often is.
function indicator(e) {
  if (!e.indicator) return h('span', { class: 'muted' }, '—');
  if (e.indicator === e.message) return h('span', { class: 'muted small' }, 'same as message');
  return h('span', { class: 'mono' }, e.indicator);
}

