// Events: the organization's security events and telemetry in a time
// range, searched by any field (an address or a CIDR, a user, a rule, a
// source, text), sorted by any column (time and severity by the API,
// across every page; the others within the page shown) and paged. All of
// it lives in the address (so links such as /events?src_ip=203.0.113.9
// work, and Back undoes a change); every address, user and asset shown is
// a link that searches for it. An automatic refresh can follow new
// events; what matched can be exported as CSV or NDJSON. One event's page
// shows all its fields and the record as it was received.

import { get, query, api } from '../api.js';
import { h, badge, form, time, words, Words, clip, choices, dl, section, download, errorBox, notFound } from '../dom.js';
import { severities } from '../vocab.js';
import { pagedList, withParams, severityRank, timeOf, text } from '../list.js';
import { readRange, rangePicker } from '../timerange.js';
import { autoRefresh } from '../refresh.js';

const LIMIT = 50;
const types = ['threat_detected', 'blocked_connection', 'dns_anomaly', 'policy_violation', 'activity'];
const sources = ['suricata', 'wazuh', 'zeek', 'windows', 'syslog', 'webhook:native'];
// The search fields, as the API names them, with their labels.
const searchFields = [
  ['q', 'Words', 'in message, rule or indicator'],
  ['src_ip', 'Source IP', '203.0.113.0/24'],
  ['dst_ip', 'Destination IP', '10.0.0.5'],
  ['asset', 'Asset', 'ws-07'],
  ['user', 'User', 'CORP\\bob'],
  ['rule', 'Rule', '5710'],
];
const filterNames = ['severity', 'type', 'source', ...searchFields.map(([n]) => n)];

export async function render(ctx) {
  return ctx.view === 'detail' ? detail(ctx) : list(ctx);
}

function list(ctx) {
  const q = ctx.query;
  const f = Object.fromEntries(filterNames.map((n) => [n, q.get(n) || '']));
  const range = readRange(q, 'all');

  const filters = form({
    className: 'inline toolbar event-search',
    submit: 'Search',
    fields: [
      { name: 'severity', label: 'Severity', type: 'select', value: f.severity,
        options: choices([['', 'Any'], ['critical,high', 'High or critical'], ...severities.map((s) => [s, Words(s)])], f.severity) },
      { name: 'type', label: 'Type', type: 'select', value: f.type, options: choices([['', 'Any'], ...types.map((t) => [t, Words(t)])], f.type) },
      { name: 'source', label: 'Source', type: 'select', value: f.source, options: choices([['', 'Any'], ...sources.map((s) => [s, s])], f.source) },
      ...searchFields.map(([name, label, placeholder]) => ({ name, label, value: f[name], placeholder, maxlength: 256 })),
    ],
    // The filters are tried first, so a bad one is named beside its field.
    onSubmit: async (v) => {
      const next = Object.fromEntries(filterNames.map((n) => [n, (v[n] || '').trim()]));
      await get('/events' + query({ ...next, limit: 0 }));
      ctx.navigate(withParams({ ...next, page: '' }));
    },
  });
  filters.setAttribute('role', 'search');
  filters.setAttribute('aria-label', 'Search events');
  const filtered = filterNames.some((n) => f[n]) || range.key !== 'all';
  const apiFilters = { ...f, from: range.from, to: range.to };

  const list = pagedList({
    caption: 'Security events', limit: LIMIT, filters, what: 'events', natural: 'newest first',
    sort: { key: 'timestamp', order: 'desc' },
    emptyMessage: filtered ? 'No events match this search in this time range.'
      : 'No events yet. Connect a sensor: create a key with the write scope in Settings → API keys, then point Suricata, Wazuh, Zeek, Winlogbeat or your devices\' syslog at Garrison (README: "Sending telemetry").',
    fetch: ({ offset, limit, api: sort }) => get('/events' + query({ ...apiFilters, limit, offset, ...sort })),
    columns: [
      { key: 'timestamp', label: 'Time', cell: (e) => h('a', { href: '/events/' + encodeURIComponent(e.id), title: 'The whole event' }, time(e.timestamp)),
        sort: (e) => timeOf(e.timestamp), server: (order) => ({ sort: 'timestamp', order }), descWords: 'newest first', ascWords: 'oldest first' },
      { key: 'severity', label: 'Severity', cell: (e) => badge(e.severity), sort: (e) => severityRank(e.severity), server: (order) => ({ sort: 'severity', order }),
        descWords: 'most severe first', ascWords: 'least severe first' },
      { key: 'type', label: 'Type', cell: (e) => words(e.type), sort: (e) => e.type, first: 'asc' },
      { key: 'source', label: 'Source', cell: (e) => pivot('source', e.source), sort: (e) => text(e.source), first: 'asc' },
      { key: 'asset', label: 'Asset', cell: (e) => pivot('asset', e.asset, 'mono'), sort: (e) => e.asset, first: 'asc' },
      { key: 'message', label: 'Message', cell: message },
      { key: 'indicator', label: 'Indicator', cell: indicator, sort: (e) => e.indicator || null, first: 'asc' },
    ],
  });
  list.node.classList.add('wide-60');

  const status = h('span', { 'aria-live': 'polite' });
  const exporter = (format) => h('button', { type: 'button', class: 'secondary small', onclick: async (ev) => {
    ev.target.disabled = true;
    status.replaceChildren('Exporting…');
    try {
      const res = await api('GET', '/events/export' + query({ ...apiFilters, format }), undefined, { raw: true });
      download('garrison-events.' + format, await res.blob(), res.headers.get('Content-Type') || 'text/plain');
      status.replaceChildren('');
    } catch (err) {
      status.replaceChildren(errorBox(err));
    } finally {
      ev.target.disabled = false;
    }
  } }, format === 'csv' ? 'Export CSV' : 'Export NDJSON');

  const page = h('div', {},
    h('h1', {}, 'Events'),
    h('div', { class: 'toolbar view-bar' },
      rangePicker({ range, apply: (p) => ctx.navigate(withParams({ ...p, page: '' })) }),
      autoRefresh({ q, tick: () => list.reload({ quiet: true }) })),
    filters,
    h('p', { class: 'small actions' },
      filtered ? [h('a', { href: '/events' }, 'Clear the search and time range'), ' · '] : null,
      'Export what matches: ', exporter('csv'), ' ', exporter('ndjson'), ' ', status),
    list.node);
  list.reload();
  return page;
}

// pivot is a value that searches for itself.
function pivot(field, value, cls) {
  if (!value) return h('span', { class: 'muted' }, '—');
  return h('a', { href: '/events' + query({ [field]: value }), class: cls || null, title: `Events with ${words(field)} ${value}` }, value);
}

// flowOf shows an event's addresses as "203.0.113.9:4444 → 10.0.0.5:22"
// (or "from …", "to …" when it has one side), each a search for itself.
function flowOf(f) {
  const side = (name, ip, port) => (ip ? [pivot(name, ip, 'mono'), port ? h('span', { class: 'mono' }, ':' + port) : null] : null);
  const src = side('src_ip', f.src_ip, f.src_port);
  const dst = side('dst_ip', f.dst_ip, f.dst_port);
  if (!src && !dst) return null;
  if (!dst) return ['from ', src];
  if (!src) return ['to ', dst];
  return [src, ' → ', dst];
}

// message shows the event's text, the alert it joined, and its fields.
function message(e) {
  const f = e.fields || {};
  const parts = [
    flowOf(f),
    f.user ? ['user ', pivot('user', f.user, 'mono')] : null,
    f.process ? ['process ', h('span', { class: 'mono' }, clip(f.process, 60))] : null,
    f.rule ? ['rule ', pivot('rule', f.rule, 'mono')] : null,
    f.action ? ['action ', f.action] : null,
  ].filter(Boolean);
  return [
    clip(e.message, 300),
    e.alert_id ? [' ', h('a', { href: '/alerts/' + encodeURIComponent(e.alert_id), class: 'small' }, 'Alert →')] : null,
    parts.length ? h('div', { class: 'small muted' }, parts.flatMap((p, i) => (i ? [' · ', p] : [p]))) : null,
  ];
}

// indicator skips repeating the message, which it often is.
function indicator(e) {
  if (!e.indicator) return h('span', { class: 'muted' }, '—');
  if (e.indicator === e.message) return h('span', { class: 'muted small' }, 'same as message');
  return h('span', { class: 'mono' }, e.indicator);
}

const fieldLabels = [['src_ip', 'Source IP'], ['src_port', 'Source port'], ['dst_ip', 'Destination IP'], ['dst_port', 'Destination port'],
  ['user', 'User'], ['process', 'Process'], ['command_line', 'Command line'], ['host', 'Host'], ['rule', 'Rule'], ['action', 'Action']];
const searchable = new Set(['src_ip', 'dst_ip', 'user', 'rule']);

// detail is one event: its fields, details and the record as received.
async function detail(ctx) {
  let e;
  try {
    e = (await get('/events/' + encodeURIComponent(ctx.params.id))).data;
  } catch (err) {
    return notFound(err, 'Event not found', 'This event does not exist in this organization, or was deleted by the retention.', '/events', '← All events');
  }
  ctx.setTitle(clip(e.message, 80));
  const f = e.fields || {};
  return h('div', {},
    h('p', { class: 'small' }, h('a', { href: '/events' }, '← All events')),
    h('h1', {}, clip(e.message, 200), ' ', badge(e.severity)),
    h('div', { class: 'grid wide' },
      section('Event', dl([
        ['Time', time(e.timestamp)],
        ['Received', time(e.received_at)],
        ['Type', words(e.type)],
        ['Source', pivot('source', e.source)],
        ['Asset', pivot('asset', e.asset, 'mono')],
        ['Indicator', e.indicator ? h('span', { class: 'mono' }, e.indicator) : null],
        ['Alert', e.alert_id ? h('a', { href: '/alerts/' + encodeURIComponent(e.alert_id) }, 'Open the alert') : null],
      ])),
      section('Fields', Object.keys(f).length
        ? dl(fieldLabels.filter(([k]) => f[k] !== undefined).map(([k, label]) =>
          [label, searchable.has(k) ? pivot(k, String(f[k]), 'mono') : h('span', { class: 'mono' }, String(f[k]))]))
        : h('p', { class: 'muted' }, 'This event has no normalised fields.'))),
    section('Details', e.details ? h('pre', { class: 'mono' }, JSON.stringify(e.details, null, 2)) : h('p', { class: 'muted' }, 'None.')),
    section('Original record', e.original
      ? h('pre', { class: 'mono', 'aria-label': 'The record as received' }, e.original)
      : h('p', { class: 'muted' }, 'This event came as Garrison\'s own JSON; there is no other original.')));
}
