// Alerts: the list (filtered by status and severity, the filters kept in
// the address) and one alert with its events, its history and, for those
// who may write, a form to resolve or reopen it with a note.

import { get, patch, query, members } from '../api.js';
import { h, load, table, time, badge, form, section, dl, notice, num, wide, words, Words, filteredList, choices } from '../dom.js';
import { severities } from '../vocab.js';

const LIMIT = 50;

export async function render(ctx) {
  return ctx.view === 'detail' ? detail(ctx) : list(ctx);
}

function list(ctx) {
  const q = ctx.query;
  const f = { status: q.get('status') || '', severity: q.get('severity') || '', offset: q.get('offset') || '' };
  const go = (params) => ctx.navigate('/alerts' + query(params));

  const filters = form({
    className: 'inline toolbar',
    submit: 'Apply',
    fields: [
      { name: 'status', label: 'Status', type: 'select', value: f.status, options: choices([['', 'Any'], ['open', 'Open'], ['resolved', 'Resolved']], f.status) },
      { name: 'severity', label: 'Severity', type: 'select', value: f.severity,
        options: choices([['', 'Any'], ['critical,high', 'High or critical'], ...severities.map((s) => [s, Words(s)])], f.severity) },
    ],
    onSubmit: async (v) => go({ status: v.status, severity: v.severity }),
  });
  filters.setAttribute('role', 'search');
  filters.setAttribute('aria-label', 'Filter alerts');
  const filtered = f.status || f.severity;

  const body = filteredList({ path: '/alerts', f, limit: LIMIT, filters, go, show: (res) =>
    wide('56rem', table([
      { label: 'Severity', cell: (a) => badge(a.severity) },
      { label: 'Alert', cell: (a) => h('a', { href: '/alerts/' + encodeURIComponent(a.id) }, a.title) },
      { label: 'Category', cell: (a) => words(a.category) },
      { label: 'Asset', cell: (a) => h('span', { class: 'mono' }, a.affected_asset || '—') },
      { label: 'Status', cell: (a) => badge(a.status) },
      { label: 'Events', class: 'num', cell: (a) => num(a.event_count) },
      { label: 'Last seen', cell: (a) => time(a.last_seen) },
    ], res.data, filtered ? 'No alerts match these filters.' : 'No alerts. High and critical events, and bursts of activity, raise alerts here.', 'Alerts')) });

  return h('div', {},
    h('h1', {}, 'Alerts'),
    filters,
    filtered ? h('p', { class: 'small' }, h('a', { href: '/alerts' }, 'Clear filters')) : null,
    body);
}

async function detail(ctx) {
  const id = ctx.params.id;
  const page = h('div');
  // Names of the organization's people, to show who resolved what; an
  // API key's id (or a failed lookup) is shown as it is.
  const names = members();

  async function show(message) {
    const a = (await get('/alerts/' + encodeURIComponent(id))).data;
    const who = await names;
    const person = (v) => (v ? who.get(v)?.name || h('span', { class: 'mono' }, v) : null);
    ctx.setTitle(a.title);
    return [
      h('p', { class: 'small' }, h('a', { href: '/alerts' }, '← All alerts')),
      h('h1', {}, a.title, ' ', badge(a.severity), ' ', badge(a.status)),
      message ? notice(message) : null,
      h('div', { class: 'grid wide' },
        section('Alert',
          dl([
            ['Severity', badge(a.severity)],
            ['Status', badge(a.status)],
            ['Category', words(a.category)],
            ['Affected asset', h('span', { class: 'mono' }, a.affected_asset || '—')],
            ['Indicator', a.indicator ? h('span', { class: 'mono' }, a.indicator) : null],
            ['Events', num(a.event_count)],
            ['First seen', time(a.first_seen)],
            ['Last seen', time(a.last_seen)],
            ['Raised', time(a.created_at)],
            ['Updated', time(a.updated_at)],
            a.resolved_at ? ['Resolved', time(a.resolved_at)] : null,
            a.resolved_by ? ['Resolved by', person(a.resolved_by)] : null,
            ['Note', a.note || null],
            ['ID', h('span', { class: 'mono' }, a.id)],
          ])),
        section('Recommended action', h('p', {}, a.recommended_action),
          ctx.can('member') ? change(a, async (m) => page.replaceChildren(...(await show(m)).filter(Boolean))) : null)),
      section('History', history(a.history || [], person)),
      section(a.event_count > (a.events || []).length ? `Events (newest ${num((a.events || []).length)} of ${num(a.event_count)})` : 'Events',
        wide('56rem', table([
          { label: 'Time', cell: (e) => time(e.timestamp) },
          { label: 'Severity', cell: (e) => badge(e.severity) },
          { label: 'Type', cell: (e) => words(e.type) },
          { label: 'Source', cell: (e) => e.source },
          { label: 'Asset', cell: (e) => h('span', { class: 'mono' }, e.asset) },
          { label: 'Message', cell: (e) => e.message },
        ], a.events || [], 'No events are kept for this alert (they may have passed the retention period).', 'Events behind this alert'))),
    ];
  }

  await load(page, () => show());
  return page;
}

// change resolves an open alert or reopens a resolved one, with a note.
function change(a, done) {
  const resolving = a.status === 'open';
  const next = resolving ? 'resolved' : 'open';
  return h('div', {},
    h('h3', {}, resolving ? 'Resolve this alert' : 'Reopen this alert'),
    form({
      submit: resolving ? 'Resolve' : 'Reopen',
      fields: [{ name: 'note', label: 'Note', type: 'textarea', rows: 3, maxlength: 2000,
        hint: resolving ? 'What was done, for whoever reads this later (optional).' : 'Why it is being reopened (optional).' }],
      onSubmit: async (v) => {
        await patch('/alerts/' + encodeURIComponent(a.id), { status: next, note: v.note });
        await done(resolving ? 'Alert resolved.' : 'Alert reopened.');
      },
    }));
}

function history(rows, person) {
  if (rows.length === 0) return h('p', { class: 'muted' }, 'No status changes recorded.');
  return h('ul', { class: 'thread' }, rows.map((c) => h('li', {},
    h('div', {}, badge(c.status), ' ', h('span', { class: 'small muted' }, 'by ', person(c.by) || '—', ' · ', time(c.at))),
    c.note ? h('p', {}, c.note) : null)));
}

