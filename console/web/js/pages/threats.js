// Threats: event counts by severity and type over 24 hours, 7 and 30
// days, the top assets and indicators of the last seven days, and every
// indicator seen (sortable, paged, the page and order in the address).

import { get, query } from '../api.js';
import { h, load, table, time, badge, section, num, words, Words } from '../dom.js';
import { pagedList, severityRank, timeOf, text } from '../list.js';
import { severities } from '../vocab.js';
import { severityColors } from '../chart.js';

const LIMIT = 50;
const types = ['threat_detected', 'blocked_connection', 'dns_anomaly', 'policy_violation'];
const windows = [['24h', 'Last 24 hours'], ['7d', 'Last 7 days'], ['30d', 'Last 30 days']];
const label = words;

export async function render(ctx) {
  const summary = h('div');
  load(summary, async () => summaryPanel((await get('/threats/summary')).data));
  // The API lists indicators most recently seen first and sorts them no
  // other way: the other columns sort the page shown.
  const list = pagedList({
    caption: 'Indicators', limit: LIMIT, what: 'indicators', natural: 'most recently seen first', sort: { key: 'last_seen', order: 'desc' },
    emptyMessage: 'No indicators seen yet. Events that carry an indicator are gathered here.',
    fetch: ({ offset, limit }) => get('/threats' + query({ limit, offset })),
    columns: [
      { key: 'indicator', label: 'Indicator', first: 'asc', sort: (t) => text(t.indicator), cell: (t) => h('span', { class: 'mono' }, t.indicator) },
      { key: 'type', label: 'Type', first: 'asc', sort: (t) => t.type, cell: (t) => label(t.type) },
      { key: 'severity', label: 'Highest severity', sort: (t) => severityRank(t.severity), cell: (t) => badge(t.severity), descWords: 'most severe first', ascWords: 'least severe first' },
      { key: 'count', label: 'Events', class: 'num', sort: (t) => t.count, cell: (t) => num(t.count) },
      { key: 'assets', label: 'Affected assets', sort: (t) => (t.affected_assets || []).length, cell: assets, descWords: 'most assets first', ascWords: 'fewest assets first' },
      { key: 'first_seen', label: 'First seen', sort: (t) => timeOf(t.first_seen), cell: (t) => time(t.first_seen) },
      { key: 'last_seen', label: 'Last seen', sort: (t) => timeOf(t.last_seen), server: (order) => (order === 'desc' ? {} : null), cell: (t) => time(t.last_seen),
        descWords: 'most recent first', ascWords: 'least recent first' },
    ],
  });
  list.node.classList.add('wide-52');
  list.reload();
  return h('div', {},
    h('h1', {}, 'Threats'),
    summary,
    section('Indicators', list.node));
}

function summaryPanel(s) {
  const w = s.windows || {};
  const count = (v) => num(v || 0);
  return [
    h('div', { class: 'grid wide' },
      section('Events by severity',
        table([
          { label: 'Window', cell: ([, name]) => name },
          { label: 'All', class: 'num', cell: ([k]) => count(w[k]?.total) },
          ...severities.map((sev) => ({ label: label(Words(sev)), class: 'num', cell: ([k]) => count(w[k]?.by_severity?.[sev]) })),
        ], windows, 'No events yet.', 'Events by severity per window')),
      section('Events by type',
        table([
          { label: 'Type', cell: (t) => h('a', { href: '/events' + query({ type: t }) }, label(t)) },
          ...windows.map(([k, name]) => ({ label: name.replace('Last ', ''), class: 'num', cell: (t) => count(w[k]?.by_type?.[t]) })),
        ], types, 'No events yet.', 'Events by type per window'))),
    h('div', { class: 'grid wide' },
      section('Top indicators, last 7 days', top(s.top_indicators_7d || [], 'Indicator', 'No indicators in the last seven days.')),
      section('Top assets, last 7 days', top(s.top_assets_7d || [], 'Asset', 'No events in the last seven days.'))),
  ];
}

// top lists names with their event counts, each with a bar relative to
// the first.
function top(rows, what, emptyMessage) {
  const max = Math.max(1, ...rows.map((r) => r.count));
  return table([
    { label: what, cell: (r) => [h('span', { class: 'mono' }, r.name), bar(r.count / max, severityColors.high)] },
    { label: 'Events', class: 'num', cell: (r) => num(r.count) },
  ], rows, emptyMessage, `Top ${what.toLowerCase()}s of the last seven days`);
}

function bar(fraction, color) {
  const fill = h('span');
  fill.style.setProperty('width', `${Math.round(fraction * 100)}%`);
  fill.style.setProperty('background', color);
  return h('div', { class: 'bar', role: 'presentation' }, fill);
}

// assets shows the first few affected assets; the rest on request.
function assets(t) {
  const list = t.affected_assets || [];
  if (list.length <= 3) return list.length ? list.join(', ') : h('span', { class: 'muted' }, '—');
  return h('details', {},
    h('summary', {}, `${list[0]} and ${list.length - 1} more`),
    h('p', { class: 'small' }, list.join(', ')),
    list.length >= 20 ? h('p', { class: 'small muted' }, 'The first 20 assets to report it.') : null);
}

