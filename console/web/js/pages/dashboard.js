// The dashboard: the security score with every explained input, the
// stats, the events of the chosen time range and their timeline, recent
// alerts, network health and the daily summary. The range (30 days unless
// the address names another) and the automatic refresh live in the address.

import { get, query } from '../api.js';
import { h, section, load, table, time, badge, num, dl, notice, words } from '../dom.js';
import { severities } from '../vocab.js';
import { lineChart, stackedBars, gauge, legend, severityColors, fit, shortDate } from '../chart.js';
import { readRange, rangePicker, days } from '../timerange.js';
import { autoRefresh } from '../refresh.js';
import { withParams } from '../list.js';

// Stacked from the least severe up.
const ascending = [...severities].reverse();

// The weight at which the API's 0–100 day risk reaches 100 (docs/api.md,
// Dashboard): round(100·(1 − e^(−w/50))) = 100 from w = 265 on.
const RISK_CEILING = 265;

export async function render(ctx) {
  const range = readRange(ctx.query, '30d');
  const score = h('div'), stats = h('div'), inRange = h('div'), timeline = h('div'), alerts = h('div'), network = h('div'), summary = h('div');
  const loads = (quiet) => Promise.all([
    load(stats, async () => statsPanel((await get('/dashboard/stats')).data), { quiet }),
    load(inRange, async () => rangePanel(range, await rangeCounts(range)), { quiet }),
    load(score, async () => scorePanel((await get('/dashboard/security-score')).data), { quiet }),
    load(timeline, async () => timelinePanel((await get('/dashboard/risk-timeline' + query({ days: days(range) }))).data, range), { quiet }),
    // The newest open alerts, as the overview lists them, without gathering
    // the posture a second time.
    load(alerts, async () => alertsPanel((await get('/alerts' + query({ status: 'open', limit: 5 }))).data), { quiet }),
    load(network, async () => networkPanel((await get('/dashboard/network-health')).data), { quiet }),
    load(summary, async () => summaryPanel((await get('/dashboard/daily-summary')).data), { quiet }),
  ]);
  const page = h('div', {},
    h('h1', {}, 'Dashboard'),
    ctx.query.get('welcome') ? notice('Welcome to Garrison. We mailed you a link to confirm your address; open it to invite your team.') : null);
  page.append(
    h('div', { class: 'toolbar view-bar' },
      rangePicker({ range, fallback: '30d', allowAll: false, apply: (p) => ctx.navigate(withParams({ ...p, welcome: '' })) }),
      autoRefresh({ q: ctx.query, tick: () => loads(true) })),
    stats,
    h('div', { class: 'grid wide' }, section('Security score', score), section('Daily summary', summary)),
    section(`Events: ${lower(range.label)}`, inRange, timeline),
    h('div', { class: 'grid wide' }, section('Recent open alerts', alerts), section('Network health', network)));
  loads(false);
  return page;
}

// rangeCounts reads how many events, and how many high or critical, the
// range holds (limit=0: the totals alone).
async function rangeCounts(range) {
  const f = { from: range.from, to: range.to, limit: 0 };
  const [all, serious] = await Promise.all([get('/events' + query(f)), get('/events' + query({ ...f, severity: 'critical,high' }))]);
  return { all: all.pagination.total, serious: serious.pagination.total };
}

// rangePanel says how many events the range holds, each count a link to
// those events.
function rangePanel(range, c) {
  const link = (extra) => '/events' + query({ range: range.key, from: range.key === 'custom' ? range.from : '', to: range.key === 'custom' ? range.to : '', ...extra });
  return h('p', { class: 'range-counts' },
    h('a', { href: link({}) }, h('strong', {}, num(c.all)), c.all === 1 ? ' event' : ' events'), ` ${rangeWords(range)}, `,
    h('a', { href: link({ severity: 'critical,high' }) }, h('strong', {}, num(c.serious))), ' of them high or critical.');
}

const lower = (label) => label.replace(/^(Last|All|Since|Until)/, (w) => w.toLowerCase());
const rangeWords = (range) => (range.key === 'custom' ? (/^(Since|Until)/.test(range.label) ? lower(range.label) : `from ${range.label}`) : `in the ${lower(range.label)}`);

// todayUTC is the start of today, UTC: where the stats' "today" begins.
const todayUTC = () => new Date().toISOString().slice(0, 10) + 'T00:00:00Z';

function statsPanel(s) {
  const item = (label, value, href) => {
    const shown = typeof value === 'number' ? num(value) : value; // '—': not assessed (num would say NaN)
    return h('div', {}, h('div', { class: 'label' }, label), h('div', { class: 'stat' }, href ? h('a', { href }, shown) : shown));
  };
  return h('div', { class: 'stats' },
    item('Open alerts', s.open_alerts, '/alerts?status=open'),
    item('Threats blocked today', s.threats_blocked_today, '/events' + query({ type: 'blocked_connection', range: 'custom', from: todayUTC() })),
    item('Compliance gaps', s.compliance_audited ? s.compliance_gaps : '—', '/compliance'),
    item('Agent runs in progress', s.agents_active, '/agents'));
}

function scorePanel(s) {
  const subs = Object.entries(s.sub_scores || {});
  return [
    h('div', { class: 'score-ring' }, gauge(s.score, 'Security score'),
      h('div', {}, h('div', { class: 'stat' }, `Grade ${s.grade}`), h('p', { class: 'muted small' }, s.formula))),
    subs.map(([name, sub]) => h('details', {},
      h('summary', {}, h('strong', {}, words(name)), ` ${sub.assessed ? sub.score : 'not assessed'} `,
        h('span', { class: 'muted small' }, `(weight ${Math.round(sub.weight * 100)}%) — ${sub.summary}`)),
      table([
        { label: 'Input', cell: (i) => words(i.name) },
        { label: 'Value', class: 'num', cell: (i) => num(i.value) },
        { label: 'Penalty', class: 'num', cell: (i) => (i.penalty ? '−' + i.penalty : '0') },
        { label: 'Why', cell: (i) => i.explanation },
      ], sub.inputs || [], 'No inputs.', `Inputs of the ${name} sub-score`))),
  ];
}

// timelinePanel plots each day's severity-weighted event count on a
// logarithmic scale: the API's 0–100 day risk is that count squeezed
// under a ceiling a real sensor's day always reaches, so it would draw a
// flat line at 100.
function timelinePanel(t, range) {
  // The days of a custom range; a preset's are the days asked for.
  const first = range.key === 'custom' && range.from ? range.from.slice(0, 10) : '', last = range.to ? range.to.slice(0, 10) : '9999';
  const points = (t.points || []).filter((p) => p.date >= first && p.date <= last);
  const labels = points.map((p) => p.date);
  const weights = points.map((p) => p.weight ?? 0);
  const capped = points.filter((p) => p.risk >= 100).length;
  const busy = points.filter((p) => p.events > 0).map((p) => p.risk);
  const desc = `One point per UTC day from ${labels[0] ? shortDate(labels[0]) : '—'} to ${labels.length ? shortDate(labels[labels.length - 1]) : '—'}; ` +
    `the busiest day weighs ${num(Math.max(0, ...weights))}, the quietest ${num(weights.length ? Math.min(...weights) : 0)}.`;
  return [
    h('p', { class: 'muted small' }, 'Each day\'s events weighed by severity: 10 for a critical, 5 for a high, 2 for a medium and 0.5 for a low event (info counts 0). ',
      h('strong', {}, 'Logarithmic scale:'), ' each step up the axis multiplies (100 to 1,000 is as tall as 10 to 100), so quiet days and busy ones both show. Days are UTC; today counts the hours so far.'),
    fit((width) => lineChart({ title: 'Severity-weighted events per day (logarithmic scale)', desc, labels, width, height: 260, yScale: 'log',
      yTitle: 'weighted events per day, log scale', mark: { value: RISK_CEILING, label: `Weight ${RISK_CEILING}: from here up the risk score reads 100` },
      series: [{ name: 'Weighted events', color: '#1d4ed8', values: weights,
        tip: (i) => `${shortDate(labels[i])}: weight ${num(weights[i])} from ${num(points[i].events)} events (risk score ${points[i].risk} of 100)` }] }), 260),
    h('div', { class: 'legend' }, h('span', { class: 'key-line' }, 'Weighted events per day'),
      h('span', { class: 'key-dash' }, `Weight ${RISK_CEILING}: from here up the 0–100 risk score reads 100`)),
    h('p', { class: 'muted small' }, 'Why not the 0–100 risk score? It is 100 · (1 − e^(−weight ÷ 50)): it reaches 99 at a weight of 210 and 100 at 265, ',
      busy.length > 1 ? `so these days' risk scores only run from ${Math.min(...busy)} to ${Math.max(...busy)}${capped ? `, ${num(capped)} of them at 100` : ''}.` : 'which a day of real sensor traffic passes.'),
    h('h3', {}, 'Events per day by severity'),
    fit((width) => stackedBars({ title: 'Events per day by severity', yTitle: 'events per day', width, rows: points.map((p) => ({ label: p.date, values: p.by_severity || {} })), keys: ascending, colors: severityColors }), 220),
    legend(ascending.map((k) => [k, severityColors[k]])),
    h('details', {}, h('summary', {}, 'The numbers, day by day'),
      table([
        { label: 'Day (UTC)', cell: (p) => shortDate(p.date) },
        { label: 'Events', class: 'num', cell: (p) => num(p.events) },
        ...severities.map((sev) => ({ label: words(sev).replace(/^./, (c) => c.toUpperCase()), class: 'num', cell: (p) => num(p.by_severity?.[sev] || 0) })),
        { label: 'Weight', class: 'num', cell: (p) => num(p.weight ?? 0) },
        { label: 'Risk score', class: 'num', cell: (p) => num(p.risk) },
      ], points.slice().reverse(), 'No days in this range.', 'Events per day')),
  ];
}

function alertsPanel(rows) {
  return [
    table([
      { label: 'Severity', cell: (a) => badge(a.severity) },
      { label: 'Alert', cell: (a) => h('a', { href: '/alerts/' + a.id }, a.title) },
      { label: 'Asset', cell: (a) => a.affected_asset || '—' },
      { label: 'Last seen', cell: (a) => time(a.last_seen) },
    ], rows, 'No alerts. Events that need a person become alerts here.', 'Recent alerts'),
    h('p', {}, h('a', { href: '/alerts' }, 'All alerts →')),
  ];
}

function networkPanel(n) {
  const d24 = n.dns?.['24h'] || {}, d7 = n.dns?.['7d'] || {};
  const p = n.protection || {};
  return [
    dl([
      ['DNS filtering', p.dns_filtering_active ? badge('active') : badge('off')],
      ['DNS queries (24 h / 7 d)', `${num(d24.queries)} / ${num(d7.queries)}`],
      ['Blocked (24 h / 7 d)', `${num(d24.blocked)} / ${num(d7.blocked)}`],
      ['Last DNS query', time(p.last_dns_query)],
      ['Event sources reporting', num(p.event_sources_reporting)],
    ]),
    h('h3', {}, 'Top blocked domains'),
    table([
      { label: 'Domain', cell: (d) => h('span', { class: 'mono' }, d.domain) },
      { label: 'Category', cell: (d) => d.category },
      { label: 'Queries', class: 'num', cell: (d) => num(d.queries) },
    ], n.top_blocked_domains || [], 'Nothing blocked yet.', 'Top blocked domains'),
  ];
}

function summaryPanel(s) {
  const f = s.facts || {};
  return [
    h('p', {}, s.summary),
    dl([
      ['Period', [time(f.period_start), ' – ', time(f.period_end)]],
      ['Events', num(f.events?.total)],
      ['Open critical / high alerts', `${num(f.open_critical_alerts)} / ${num(f.open_high_alerts)}`],
      f.top_asset ? ['Busiest asset', `${f.top_asset.name} (${num(f.top_asset.events)} events)`] : null,
      f.top_indicator ? ['Top indicator', `${f.top_indicator.name} (${num(f.top_indicator.events)})`] : null,
    ]),
    h('p', { class: 'muted small' }, s.generated_by === 'facts' ? 'Written from the facts above.' : 'Phrased by the language model from the facts above.'),
  ];
}
