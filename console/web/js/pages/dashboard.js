// The dashboard: the security score with every explained input, the
// stats, the risk timeline, recent alerts, network health and the daily
// summary.

import { get, query } from '../api.js';
import { h, section, load, table, time, badge, num, dl, notice, words } from '../dom.js';
import { severities } from '../vocab.js';
import { lineChart, stackedBars, gauge, legend, severityColors } from '../chart.js';

// Stacked from the least severe up.
const ascending = [...severities].reverse();

export async function render(ctx) {
  const score = h('div'), stats = h('div'), timeline = h('div'), alerts = h('div'), network = h('div'), summary = h('div');
  const page = h('div', {},
    h('h1', {}, 'Dashboard'),
    ctx.query.get('welcome') ? notice('Welcome to Garrison. We mailed you a link to confirm your address; open it to invite your team.') : null,
    stats,
    h('div', { class: 'grid wide' }, section('Security score', score), section('Daily summary', summary)),
    section('Risk over the last 30 days', timeline),
    h('div', { class: 'grid wide' }, section('Recent alerts', alerts), section('Network health', network)));
  load(stats, async () => statsPanel((await get('/dashboard/stats')).data));
  load(score, async () => scorePanel((await get('/dashboard/security-score')).data));
  load(timeline, async () => timelinePanel((await get('/dashboard/risk-timeline?days=30')).data));
  // The newest open alerts, as the overview lists them, without gathering
  // the posture a second time.
  load(alerts, async () => alertsPanel((await get('/alerts' + query({ status: 'open', limit: 5 }))).data));
  load(network, async () => networkPanel((await get('/dashboard/network-health')).data));
  load(summary, async () => summaryPanel((await get('/dashboard/daily-summary')).data));
  return page;
}

function statsPanel(s) {
  const item = (label, value, href) => h('div', {}, h('div', { class: 'label' }, label), h('div', { class: 'stat' }, href ? h('a', { href }, num(value)) : num(value)));
  return h('div', { class: 'stats' },
    item('Open alerts', s.open_alerts, '/alerts?status=open'),
    item('Threats blocked today', s.threats_blocked_today, '/events?type=blocked_connection'),
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

function timelinePanel(t) {
  const points = t.points || [];
  const labels = points.map((p) => p.date);
  return [
    h('p', { class: 'muted small' }, 'Daily risk from 0 (quiet) to 100 (severe): higher is worse. Today\'s point counts only the hours so far.'),
    lineChart({ title: 'Risk score per day', desc: 'Daily risk from 0 to 100', labels, yMax: 100, series: [{ name: 'Risk', color: '#1d4ed8', values: points.map((p) => p.risk) }] }),
    h('h3', {}, 'Events per day by severity'),
    stackedBars({ title: 'Events per day by severity', rows: points.map((p) => ({ label: p.date, values: p.by_severity || {} })), keys: ascending, colors: severityColors }),
    legend(ascending.map((k) => [k, severityColors[k]])),
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
