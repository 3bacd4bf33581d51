// Events: the organization's security events in a time range, filtered by
// severity and type, sorted by any column (time and severity by the API,
// across every page; the others within the page shown) and paged. All of
// it lives in the address (so links such as /events?type=blocked_connection
// work, and Back undoes a change); an automatic refresh can follow new events.

import { get, query } from '../api.js';
import { h, badge, form, time, words, Words, clip, choices } from '../dom.js';
import { severities } from '../vocab.js';
import { pagedList, withParams, severityRank, timeOf, text } from '../list.js';
import { readRange, rangePicker } from '../timerange.js';
import { autoRefresh } from '../refresh.js';

const LIMIT = 50;
const types = ['threat_detected', 'blocked_connection', 'dns_anomaly', 'policy_violation'];

export async function render(ctx) {
  const q = ctx.query;
  const f = { severity: q.get('severity') || '', type: q.get('type') || '' };
  const range = readRange(q, 'all');

  const filters = form({
    className: 'inline toolbar',
    submit: 'Apply',
    fields: [
      { name: 'severity', label: 'Severity', type: 'select', value: f.severity,
        options: choices([['', 'Any'], ['critical,high', 'High or critical'], ...severities.map((s) => [s, Words(s)])], f.severity) },
      { name: 'type', label: 'Type', type: 'select', value: f.type, options: choices([['', 'Any'], ...types.map((t) => [t, words(t)])], f.type) },
    ],
    onSubmit: async (v) => ctx.navigate(withParams({ severity: v.severity, type: v.type, page: '' })),
  });
  filters.setAttribute('role', 'search');
  filters.setAttribute('aria-label', 'Filter events');
  const filtered = f.severity || f.type || range.key !== 'all';

  const list = pagedList({
    caption: 'Security events', limit: LIMIT, filters, what: 'events', natural: 'newest first',
    sort: { key: 'timestamp', order: 'desc' },
    emptyMessage: filtered ? 'No events match these filters in this time range.'
      : 'No events yet. Connect a sensor: create a key with the write scope in Settings → API keys, then point Suricata or your other tools at Garrison (the Onboarding agent lists the steps).',
    fetch: ({ offset, limit, api }) => get('/events' + query({ ...f, from: range.from, to: range.to, limit, offset, ...api })),
    columns: [
      { key: 'timestamp', label: 'Time', cell: (e) => time(e.timestamp), sort: (e) => timeOf(e.timestamp), server: (order) => ({ sort: 'timestamp', order }),
        descWords: 'newest first', ascWords: 'oldest first' },
      { key: 'severity', label: 'Severity', cell: (e) => badge(e.severity), sort: (e) => severityRank(e.severity), server: (order) => ({ sort: 'severity', order }),
        descWords: 'most severe first', ascWords: 'least severe first' },
      { key: 'type', label: 'Type', cell: (e) => words(e.type), sort: (e) => e.type, first: 'asc' },
      { key: 'source', label: 'Source', cell: (e) => e.source, sort: (e) => text(e.source), first: 'asc' },
      { key: 'asset', label: 'Asset', cell: (e) => h('span', { class: 'mono' }, e.asset), sort: (e) => e.asset, first: 'asc' },
      { key: 'message', label: 'Message', cell: message },
      { key: 'indicator', label: 'Indicator', cell: indicator, sort: (e) => e.indicator || null, first: 'asc' },
    ],
  });
  list.node.classList.add('wide-60');

  const page = h('div', {},
    h('h1', {}, 'Events'),
    h('div', { class: 'toolbar view-bar' },
      rangePicker({ range, apply: (p) => ctx.navigate(withParams({ ...p, page: '' })) }),
      filters,
      autoRefresh({ q, tick: () => list.reload({ quiet: true }) })),
    filtered ? h('p', { class: 'small' }, h('a', { href: '/events' }, 'Clear filters and time range')) : null,
    list.node);
  list.reload();
  return page;
}

// message shows the event's text, the alert it joined, and a line of its
// details (the whole JSON on hover).
function message(e) {
  const d = e.details && typeof e.details === 'object' ? e.details : null;
  const line = d ? Object.entries(d).filter(([, v]) => v === null || typeof v !== 'object').map(([k, v]) => `${k}: ${v}`).join(' · ') : '';
  return [
    clip(e.message, 300),
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
