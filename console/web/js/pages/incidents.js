// Incidents: alerts sharing an attacker (an outside address, a source, an
// account) within a day of each other, across signatures and assets. The
// list is the queue of who is attacking; one incident shows its assets,
// its ATT&CK tactics in kill-chain order and its timeline of alerts.

import { get, query } from '../api.js';
import { h, load, time, badge, form, section, dl, num, words, choices, notFound } from '../dom.js';
import { pagedList, withParams, severityRank, timeOf, text } from '../list.js';
import { autoRefresh } from '../refresh.js';
import { ruleLine } from './alerts.js';

const LIMIT = 50;

export async function render(ctx) {
  return ctx.view === 'detail' ? detail(ctx) : list(ctx);
}

const count = (n, one, many = one + 's') => `${num(n)} ${n === 1 ? one : many}`;

// attacker names an incident's attacker with its kind.
const attacker = (i) => [h('span', { class: 'mono' }, i.attacker), h('div', { class: 'small muted' }, i.attacker_kind === 'user' ? 'Account' : 'Address')];

function tactics(list) {
  if (!list.length) return h('span', { class: 'muted' }, 'None named');
  return h('ol', { class: 'tactics', 'aria-label': 'ATT&CK tactics in kill-chain order' }, list.map((t) => h('li', {}, words(t.replaceAll('-', '_')))));
}

function list(ctx) {
  const q = ctx.query;
  const status = q.get('status') || '';
  const filters = form({
    className: 'inline toolbar',
    submit: 'Apply',
    fields: [{ name: 'status', label: 'Status', type: 'select', value: status,
      options: choices([['', 'Any'], ['open', 'Open'], ['resolved', 'Resolved']], status) }],
    onSubmit: async (v) => ctx.navigate(withParams({ status: v.status, page: '' })),
  });
  filters.setAttribute('role', 'search');
  filters.setAttribute('aria-label', 'Filter incidents');
  const columns = [
    { key: 'severity', label: 'Severity', cell: (i) => badge(i.severity), sort: (i) => severityRank(i.severity), descWords: 'most severe first', ascWords: 'least severe first' },
    { key: 'attacker', label: 'Attacker', first: 'asc', sort: (i) => text(i.attacker),
      cell: (i) => [h('a', { href: '/incidents/' + encodeURIComponent(i.id), class: 'mono' }, i.attacker), h('div', { class: 'small muted' }, i.attacker_kind === 'user' ? 'Account' : 'Address')] },
    { key: 'alerts', label: 'Alerts', class: 'num', sort: (i) => i.alert_count, cell: (i) => num(i.alert_count) },
    { key: 'assets', label: 'Assets', first: 'asc', sort: (i) => i.assets.length,
      cell: (i) => [h('span', { class: 'mono' }, i.assets.slice(0, 3).join(', ')), i.assets.length > 3 ? h('span', { class: 'muted' }, ` and ${num(i.assets.length - 3)} more`) : null] },
    { key: 'tactics', label: 'Tactics', cell: (i) => (i.tactics.length ? i.tactics.map((t) => words(t.replaceAll('-', '_'))).join(' → ') : h('span', { class: 'muted' }, '—')) },
    { key: 'status', label: 'Status', first: 'asc', sort: (i) => i.status, cell: (i) => badge(i.status) },
    { key: 'last_seen', label: 'Last seen', sort: (i) => timeOf(i.last_seen), server: (order) => (order === 'desc' ? {} : null),
      cell: (i) => time(i.last_seen), descWords: 'most recent first', ascWords: 'least recent first' },
  ];
  const paged = pagedList({
    caption: 'Incidents', limit: LIMIT, filters, columns, what: 'incidents', natural: 'most recently active first',
    sort: { key: 'last_seen', order: 'desc' },
    emptyMessage: status ? 'No incidents match this filter.' : 'No incidents. Alerts whose events name an attacker (an address or an account) are grouped here.',
    rowAttrs: (i) => ({ 'data-id': i.id }),
    fetch: ({ offset, limit }) => get('/incidents' + query({ status, limit, offset })),
  });
  paged.node.classList.add('wide-60');
  paged.reload();
  return h('div', {},
    h('h1', {}, 'Incidents'),
    h('p', { class: 'muted' }, 'Alerts sharing an attacker within a day of each other, across signatures and assets: one row per attacker and episode.'),
    h('div', { class: 'toolbar view-bar' }, filters, autoRefresh({ q, tick: () => paged.reload({ quiet: true }) })),
    status ? h('p', { class: 'small' }, h('a', { href: '/incidents' }, 'Clear the filter')) : null,
    paged.node);
}

async function detail(ctx) {
  const page = h('div');
  await load(page, async () => {
    let inc;
    try {
      inc = (await get('/incidents/' + encodeURIComponent(ctx.params.id))).data;
    } catch (err) {
      return notFound(err, 'Incident', 'There is no such incident in your organization.', '/incidents', 'Back to the incidents');
    }
    ctx.setTitle('Incident: ' + inc.attacker);
    const shown = inc.alerts.length < inc.alert_count ? ` (the newest ${num(inc.alerts.length)} of ${num(inc.alert_count)})` : '';
    return [
      h('p', { class: 'small' }, h('a', { href: '/incidents' }, '← All incidents')),
      h('h1', {}, 'Incident: ', h('span', { class: 'mono' }, inc.attacker), ' ', badge(inc.severity), ' ', badge(inc.status)),
      h('div', { class: 'grid wide' },
        section('Incident', dl([
          ['Attacker', attacker(inc)],
          ['Severity', [badge(inc.severity), h('span', { class: 'small muted' }, ' the highest of its alerts')]],
          ['Status', [badge(inc.status), h('span', { class: 'small muted' }, inc.status === 'open' ? ' while one of its alerts is open' : ' every alert is resolved')]],
          ['Alerts', num(inc.alert_count)],
          ['Assets', h('ul', { class: 'plain mono' }, inc.assets.map((a) => h('li', {}, a)))],
          ['First seen', time(inc.first_seen)],
          ['Last seen', time(inc.last_seen)],
          ['Opened', time(inc.created_at)],
        ])),
        section('ATT&CK tactics', h('p', { class: 'small muted' }, 'In kill-chain order, from each alert\'s rule, or its category.'), tactics(inc.tactics))),
      section('Timeline' + shown, h('ol', { class: 'timeline' }, inc.alerts.map((a) => h('li', {},
        h('div', { class: 'when' }, time(a.first_seen)),
        h('div', { class: 'what' },
          badge(a.severity), ' ', h('a', { href: '/alerts/' + encodeURIComponent(a.id) }, a.title), ' on ', h('span', { class: 'mono' }, a.affected_asset),
          h('div', { class: 'small muted' }, `${words(a.category)} · ${count(a.event_count, 'event')} until `, time(a.last_seen), a.status === 'resolved' ? ' · resolved' : ''),
          a.rule ? ruleLine(a.rule) : null))))),
    ];
  });
  return page;
}
