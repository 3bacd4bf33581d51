// Clients: a provider's fleet (GET /clients: worst first, sortable,
// filtered, paged, all kept in the address), each count a link into that
// client's own filtered page; adding, renaming and offboarding clients;
// and one alert queue across them (GET /clients/alerts). Opening anything
// of a client acts in it (POST /auth/switch-org): the header then says so.

import { get, post, patch, del, query } from '../api.js';
import { h, form, badge, time, num, words, Words, notice, errorBox, dialog, copyButton, choices, stepUp } from '../dom.js';
import { pagedList, withParams, severityRank, timeOf, text } from '../list.js';
import { severities } from '../vocab.js';
import { autoRefresh } from '../refresh.js';
import { staffOf } from '../org.js';

export async function render(ctx) {
  const me = ctx.me;
  // What the last change did (done, below) comes as the page's history state.
  const message = h('div', { 'aria-live': 'polite' }, history.state?.notice ? notice(history.state.notice) : null);
  const kind = me.organization?.kind;
  const tabs = kind === 'provider' && h('nav', { class: 'tabs', 'aria-label': 'Clients' },
    [['/clients', 'Fleet', 'fleet'], ['/clients/alerts', 'Alert queue', 'alerts']].map(([href, label, view]) =>
      h('a', { href, 'aria-current': ctx.view === view ? 'page' : null }, label)));
  const page = (...body) => h('div', {}, h('h1', {}, ctx.view === 'alerts' ? 'Alerts across clients' : 'Clients'), tabs, message, ...body);
  if (kind !== 'provider' && !(kind === 'standalone' && ctx.can('admin') && ctx.view === 'fleet')) {
    // The clients are worked acting in their provider.
    const staff = staffOf(me);
    if (!staff.length) return page(h('p', {}, 'Only a provider\'s admins and technicians work with its clients.'));
    return page(h('p', {}, 'You are acting in ', h('strong', {}, me.org), '. Clients are worked from their provider.'),
      h('div', { class: 'actions' }, staff.map((p) => h('button', { type: 'button', onclick: (ev) => go(ctx, message, p.org_id, location.pathname + location.search, ev) },
        `Switch to ${p.org_name}`))));
  }
  return page(ctx.view === 'alerts' ? queue(ctx, message) : fleet(ctx, message));
}

// go acts in an organization and opens a page there; a refusal is said
// where the page shows its messages.
async function go(ctx, message, orgID, to, ev) {
  ev.preventDefault();
  const el = ev.currentTarget;
  el.setAttribute('aria-disabled', 'true');
  try {
    await ctx.switchOrg(orgID, to);
  } catch (err) {
    el.removeAttribute('aria-disabled');
    message.replaceChildren(errorBox(err));
  }
}

// into is a link to a page of a client: following it acts in the client.
// Every click follows it here: a new tab would open it in the
// organization the session acts in, not the client.
function into(ctx, message, c, to, label, name) {
  const open = (ev) => go(ctx, message, c.id, to, ev);
  return h('a', { href: to, class: 'into', 'aria-label': name, title: `Opens in ${c.name}`, onclick: open,
    onauxclick: (ev) => { if (ev.button === 1) open(ev); } }, label);
}

// ---- The fleet ----

const grades = ['A', 'B', 'C', 'D', 'F'];
const frameworks = { soc2: 'SOC 2', hipaa: 'HIPAA', nist: 'NIST CSF', cis: 'CIS' };

// age says how long, in the largest whole unit.
const span = (s) => (s >= 86400 ? `${Math.floor(s / 86400)} d` : s >= 3600 ? `${Math.floor(s / 3600)} h` : `${Math.max(1, Math.floor(s / 60))} min`);
const age = (s) => (s == null ? h('span', { class: 'muted' }, '—') : h('span', { title: `${num(s)} seconds` }, span(s)));
// ago is a time as how long ago, the time itself on hover.
function ago(iso) {
  const t = time(iso);
  t.textContent = span(Math.max(0, (Date.now() - Date.parse(iso)) / 1000)) + ' ago';
  t.title = new Date(iso).toLocaleString() + ' (' + t.title + ')';
  return t;
}

const NS = 'http://www.w3.org/2000/svg';
const svg = (tag, attrs) => {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
};

// spark draws the 0–100 day risk of the last days, oldest first, on one
// scale for every client; the latest value is written beside it.
function spark(points) {
  if (!points.length) return h('span', { class: 'muted' }, '—');
  const w = 84, hgt = 24, step = w / Math.max(1, points.length - 1);
  const xy = points.map((v, i) => [Math.round(i * step * 10) / 10, Math.round((hgt - 2 - (v / 100) * (hgt - 4)) * 10) / 10]);
  const last = points[points.length - 1];
  const s = svg('svg', { viewBox: `-2 0 ${w + 4} ${hgt}`, width: w + 4, height: hgt, class: 'spark', role: 'img',
    'aria-label': `Risk of the last ${points.length} days, oldest first: ${points.join(', ')} (of 100)` });
  s.append(svg('line', { x1: 0, x2: w, y1: hgt - 2, y2: hgt - 2, class: 'spark-base' }),
    svg('polyline', { points: xy.map((p) => p.join(',')).join(' '), class: 'spark-line' }),
    svg('circle', { cx: xy[xy.length - 1][0], cy: xy[xy.length - 1][1], r: 2.5, class: 'spark-dot' }));
  return h('span', { class: 'spark-box' }, s, h('span', { class: 'small', 'aria-hidden': 'true' }, String(last)));
}

function fleet(ctx, message) {
  const q = ctx.query;
  const f = { q: q.get('q') || '', grade: q.get('grade') || '', silent: q.get('silent') || '' };
  const admin = ctx.can('admin');
  const filters = form({
    className: 'inline toolbar', submit: 'Apply',
    fields: [
      { name: 'q', label: 'Name contains', type: 'search', value: f.q, maxlength: 100 },
      { name: 'grade', label: 'Grade', type: 'select', value: f.grade,
        options: choices([['', 'Any'], ['D,F', 'D or F'], ['C,D,F', 'C or worse'], ...grades.map((g) => [g, g])], f.grade) },
      { name: 'silent', label: 'Sensors', type: 'select', value: f.silent, options: [['', 'Any'], ['true', 'Silent over 24 hours'], ['false', 'Reporting']] },
    ],
    onSubmit: async (v) => ctx.navigate(withParams({ q: v.q.trim(), grade: v.grade, silent: v.silent, page: '' })),
  });
  filters.setAttribute('role', 'search');
  filters.setAttribute('aria-label', 'Filter clients');
  const filtered = f.q || f.grade || f.silent;
  const link = (c, to, n, what) => (n ? into(ctx, message, c, to, num(n), `${num(n)} ${what} in ${c.name}`) : h('span', { class: 'muted' }, '0'));

  const columns = [
    { key: 'name', label: 'Client', class: 'c-name', first: 'asc', sort: (c) => text(c.name), server: (o) => (o === 'asc' ? { sort: 'name' } : null), ascWords: 'A to Z', descWords: 'Z to A',
      cell: (c) => [into(ctx, message, c, '/', c.name, null),
        h('div', { class: 'small muted' }, `${Words(c.plan)}${c.plan_own ? '' : ' (provider\'s)'} · ${num(c.members_count)} ${c.members_count === 1 ? 'member' : 'members'}`)] },
    { key: 'score', label: 'Score', first: 'asc', sort: (c) => c.score, server: (o) => (o === 'asc' ? {} : null), ascWords: 'worst first', descWords: 'best first',
      cell: (c) => h('span', { class: 'grade g-' + c.grade, title: `Computed ${new Date(c.score_computed_at).toLocaleString()}` }, h('strong', {}, c.grade), ' ', num(c.score)) },
    { key: 'trend', label: 'Risk, 7 days', cell: (c) => spark(c.risk_trend || []) },
    { key: 'critical', label: 'Open critical', class: 'num', sort: (c) => c.open_alerts.critical * 1e6 + c.open_alerts_total,
      server: (o) => (o === 'desc' ? { sort: 'open_critical' } : null), descWords: 'most first', ascWords: 'fewest first',
      cell: (c) => link(c, '/alerts?status=open&severity=critical', c.open_alerts.critical, 'open critical alerts') },
    { key: 'alerts', label: 'Open alerts', class: 'num', sort: (c) => c.open_alerts_total, descWords: 'most first', ascWords: 'fewest first',
      cell: (c) => [link(c, '/alerts?status=open', c.open_alerts_total, 'open alerts'),
        c.open_alerts_total ? h('div', { class: 'small muted' }, severities.slice(1, 3).filter((s) => c.open_alerts[s]).map((s) => `${num(c.open_alerts[s])} ${s}`).join(' · ')) : null] },
    { key: 'oldest', label: 'Oldest critical', sort: (c) => c.oldest_open_critical_age_seconds, descWords: 'oldest first', ascWords: 'newest first',
      cell: (c) => age(c.oldest_open_critical_age_seconds) },
    { key: 'last_event', label: 'Last event', first: 'asc', sort: (c) => timeOf(c.last_event_at), server: (o) => (o === 'asc' ? { sort: 'last_event' } : null),
      ascWords: 'longest silent first', descWords: 'most recent first',
      cell: (c) => [c.last_event_at ? ago(c.last_event_at) : h('span', { class: 'muted' }, 'Never'), c.silent ? h('div', {}, h('span', { class: 'silent' }, 'Silent')) : null] },
    { key: 'tickets', label: 'Tickets', sort: (c) => c.tickets.escalated * 1e6 + c.tickets.open, descWords: 'most escalated first', ascWords: 'fewest first',
      cell: (c) => [h('div', {}, `${num(c.tickets.open)} open`),
        c.tickets.escalated ? h('div', {}, into(ctx, message, c, '/tickets?status=escalated', `${num(c.tickets.escalated)} escalated`, `${num(c.tickets.escalated)} escalated tickets in ${c.name}`)) : null] },
    { key: 'kev', label: 'KEV exposure', sort: (c) => c.kev_affected_assets, descWords: 'most first', ascWords: 'fewest first',
      cell: (c) => (c.kev_cves ? into(ctx, message, c, '/cve-watchlist?kev=true&affected=true', `${num(c.kev_cves)} CVEs · ${num(c.kev_affected_assets)} assets`,
        `${num(c.kev_cves)} KEV-listed CVEs on ${num(c.kev_affected_assets)} assets in ${c.name}`) : h('span', { class: 'muted' }, 'None')) },
    { key: 'compliance', label: 'Compliance', cell: (c) => (c.compliance.length
      ? h('ul', { class: 'plain small' }, c.compliance.map((x) => h('li', { title: `Audited ${new Date(x.audited_at).toLocaleDateString()}` }, `${frameworks[x.framework] || x.framework} ${x.completion_percentage}%`)))
      : h('span', { class: 'muted' }, 'Not audited')) },
    admin ? { key: 'actions', label: 'Actions', cell: (c) => h('div', { class: 'actions' },
      h('button', { type: 'button', class: 'secondary small', 'aria-label': `Rename ${c.name}`, onclick: () => rename(c, done) }, 'Rename…'),
      h('button', { type: 'button', class: 'secondary small', 'aria-label': `Offboard ${c.name}`, onclick: () => offboard(ctx, c, done) }, 'Offboard…')) } : null,
  ].filter(Boolean);

  const list = pagedList({
    caption: 'Clients', limit: 50, filters, columns, what: 'clients', natural: 'worst score first',
    sort: { key: 'score', order: 'asc' },
    emptyMessage: filtered ? 'No client matches these filters.' : 'No clients yet.' + (admin ? ' Add the first one below.' : ''),
    rowAttrs: (c) => ({ 'data-id': c.id }),
    fetch: ({ offset, limit, api }) => get('/clients' + query({ ...f, limit, offset, ...api })),
  });
  list.node.classList.add('wide-fleet');
  list.reload();

  // done shows what a change did, with the header's list of organizations
  // read again (it names the clients).
  async function done(text) {
    await ctx.refreshMe();
    ctx.navigate(location.pathname + location.search, true, { notice: text });
  }

  return [
    h('div', { class: 'toolbar view-bar' }, filters, autoRefresh({ q, tick: () => list.reload({ quiet: true }) })),
    filtered ? h('p', { class: 'small' }, h('a', { href: '/clients' }, 'Clear filters')) : null,
    list.node,
    h('p', { class: 'muted small' }, 'Score, grade, the 7 days of risk, compliance and KEV exposure are at most 10 minutes old; alerts, events and tickets are at most a second old. ',
      'A count opens that client\'s page, acting in the client.'),
    admin ? addClient(ctx, done) : null,
  ];
}

function addClient(ctx, done) {
  const standalone = ctx.me.organization?.kind === 'standalone';
  const f = form({
    submit: 'Add client',
    fields: [
      { name: 'name', label: 'Client name', required: true, maxlength: 100, autocomplete: 'off' },
      { name: 'plan', label: 'Plan', type: 'select', value: '',
        options: [['', `${Words(ctx.me.plan)}: the provider's plan, following its changes`], ['starter', 'Starter'], ['pro', 'Pro'], ['ultimate', 'Ultimate']] },
      { name: 'admin_email', label: 'First admin\'s e-mail (optional)', type: 'email', autocomplete: 'off',
        hint: 'Invited as the client\'s admin. They see their own organization only, never yours or other clients.' },
    ],
    onSubmit: async (v) => {
      const body = { name: v.name };
      if (v.plan) body.plan = v.plan;
      if (v.admin_email) body.admin_email = v.admin_email;
      const c = (await post('/clients', body)).data;
      f.reset();
      await done(`${c.name} was added.`);
      const inv = c.admin_invite;
      if (inv) {
        const link = location.origin + '/register?token=' + encodeURIComponent(inv.token);
        dialog('Client added', (close) => h('div', {},
          h('p', {}, `We mailed ${inv.email} an invitation to be ${c.name}'s admin. You can also send them this link; it works once, only for that address, until ${new Date(inv.expires_at).toLocaleDateString()}.`),
          h('pre', { class: 'mono' }, link),
          h('p', { class: 'error', role: 'alert' }, h('strong', {}, 'Copy it now. '), 'This link will not be shown again.'),
          h('div', { class: 'actions' }, copyButton(link), h('button', { type: 'button', class: 'secondary', onclick: close }, 'Done'))));
      }
    },
  });
  return h('section', { class: 'panel', 'aria-labelledby': 'add-client' },
    h('h2', { id: 'add-client' }, 'Add a client'),
    h('p', { class: 'muted small' }, 'A client is an organization of its own: its events, alerts, tickets, members and keys are apart from yours and from every other client\'s. ',
      standalone ? 'Adding the first one makes this organization their provider.' : ''),
    f);
}

function rename(c, done) {
  dialog(`Rename ${c.name}`, (close) => form({
    submit: 'Rename', cancel: close,
    fields: [{ name: 'name', label: 'New name', required: true, maxlength: 100, value: c.name, autocomplete: 'off' }],
    onSubmit: async (v) => {
      const r = (await patch('/clients/' + encodeURIComponent(c.id), { name: v.name })).data;
      close();
      await done(`${c.name} is now called ${r.name}.`);
    },
  }));
}

// offboard deletes a client and all it owns, once its exact name is typed.
function offboard(ctx, c, done) {
  dialog(`Offboard ${c.name}`, (close) => {
    const f = form({
      submit: 'Offboard and delete forever', cancel: close,
      fields: [{ name: 'confirm', label: `Type "${c.name}" to confirm`, required: true, autocomplete: 'off' }],
      onSubmit: async (v) => {
        await stepUp(() => del('/clients/' + encodeURIComponent(c.id), { confirm: v.confirm }));
        close();
        await done(`${c.name} was offboarded: it and everything it owned are deleted.`);
      },
    });
    f.querySelector('button[type=submit]').classList.add('danger');
    return h('div', {},
      h('p', {}, 'This deletes ', h('strong', {}, c.name), ' and everything it owns: its events, alerts, tickets, reports, API keys, and the accounts that belong only to it. Their sessions and keys stop at once. It cannot be undone.'),
      f);
  });
}

// ---- One alert queue across clients ----

function queue(ctx, message) {
  const q = ctx.query;
  const f = { status: q.get('status') || 'open', severity: q.get('severity') || '' };
  const filters = form({
    className: 'inline toolbar', submit: 'Apply',
    fields: [
      { name: 'status', label: 'Status', type: 'select', value: f.status, options: choices([['open', 'Open'], ['resolved', 'Resolved'], ['all', 'Any']], f.status) },
      { name: 'severity', label: 'Severity', type: 'select', value: f.severity,
        options: choices([['', 'Any'], ['critical,high', 'High or critical'], ...severities.map((s) => [s, Words(s)])], f.severity) },
    ],
    // Open is the queue's own view: it leaves the address clean.
    onSubmit: async (v) => ctx.navigate(withParams({ status: v.status === 'open' ? null : v.status, severity: v.severity, page: '' })),
  });
  filters.setAttribute('role', 'search');
  filters.setAttribute('aria-label', 'Filter alerts');
  const list = pagedList({
    caption: 'Alerts across clients', limit: 50, filters, what: 'the queue', natural: 'most recently active first', sort: { key: 'last_seen', order: 'desc' },
    emptyMessage: f.status === 'open' && !f.severity ? 'No open alert in any client.' : 'No alert matches these filters.',
    rowAttrs: (a) => ({ 'data-id': a.id, 'data-client': a.client.id }),
    fetch: ({ offset, limit }) => get('/clients/alerts' + query({ status: f.status === 'all' ? '' : f.status, severity: f.severity, limit, offset })),
    columns: [
      { key: 'severity', label: 'Severity', cell: (a) => badge(a.severity), sort: (a) => severityRank(a.severity), descWords: 'most severe first', ascWords: 'least severe first' },
      { key: 'client', label: 'Client', first: 'asc', sort: (a) => text(a.client.name), cell: (a) => h('strong', {}, a.client.name) },
      { key: 'title', label: 'Alert', first: 'asc', sort: (a) => text(a.title),
        cell: (a) => [into(ctx, message, a.client, '/alerts/' + encodeURIComponent(a.id), a.title, null), h('div', { class: 'small muted' }, words(a.category))] },
      { key: 'asset', label: 'Asset', first: 'asc', sort: (a) => a.affected_asset, cell: (a) => h('span', { class: 'mono' }, a.affected_asset || '—') },
      { key: 'status', label: 'Status', first: 'asc', sort: (a) => a.status + (a.acknowledged_at ? 'a' : ''),
        cell: (a) => [badge(a.status), a.status === 'open' && a.acknowledged_at ? h('div', { class: 'small muted' }, 'Acknowledged') : null] },
      { key: 'events', label: 'Events', class: 'num', sort: (a) => a.event_count, cell: (a) => num(a.event_count) },
      { key: 'last_seen', label: 'Last seen', sort: (a) => timeOf(a.last_seen), server: (o) => (o === 'desc' ? {} : null),
        cell: (a) => time(a.last_seen), descWords: 'most recent first', ascWords: 'least recent first' },
    ],
  });
  list.node.classList.add('wide-60');
  list.reload();
  return [
    h('div', { class: 'toolbar view-bar' }, filters, autoRefresh({ q, tick: () => list.reload({ quiet: true }) })),
    h('p', { class: 'muted small' }, 'Every client you reach, most recently active first. Opening an alert acts in its client, where it is worked.'),
    list.node,
  ];
}
