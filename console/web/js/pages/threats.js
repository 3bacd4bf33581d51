// Threats: event counts by severity and type over 24 hours, 7 and 30
// days, the top assets and indicators of the last seven days, and every
// indicator seen, most recently seen first (paged, the page in the address).

import { get, query } from '../api.js';
import { h, load, table, time, badge, pager, section, num, wide, words, Words } from '../dom.js';
import { severities } from '../vocab.js';
import { severityColors } from '../chart.js';

const LIMIT = 50;
const types = ['threat_detected', 'blocked_connection', 'dns_anomaly', 'policy_violation'];
const windows = [['24h', 'Last 24 hours'], ['7d', 'Last 7 days'], ['30d', 'Last 30 days']];
const label = words;

export async function render(ctx) {
  const summary = h('div'), list = h('div');
  const offset = ctx.query.get('offset') || '';
  load(summary, async () => summaryPanel((await get('/threats/summary')).data));
  load(list, async () => {
    const res = await get('/threats' + query({ limit: LIMIT, offset }));
    return [
      wide('52rem', table([
        { label: 'Indicator', cell: (t) => h('span', { class: 'mono' }, t.indicator) },
        { label: 'Type', cell: (t) => label(t.type) },
        { label: 'Highest severity', cell: (t) => badge(t.severity) },
        { label: 'Events', class: 'num', cell: (t) => num(t.count) },
        { label: 'Affected assets', cell: assets },
        { label: 'First seen', cell: (t) => time(t.first_seen) },
        { label: 'Last seen', cell: (t) => time(t.last_seen) },
      ], res.data, 'No indicators seen yet. Events that carry an indicator are gathered here.', 'Indicators')),
      res.pagination.total > 0 && pager(res.pagination, (o) => ctx.navigate('/threats' + query({ offset: o || '' }))),
    ];
  });
  return h('div', {},
    h('h1', {}, 'Threats'),
    summary,
    section('Indicators, most recently seen first', list));
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

