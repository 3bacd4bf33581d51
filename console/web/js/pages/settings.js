// Settings: API keys, members and invitations, the organization and the
// signed-in account, and the audit log. The tab is in the address
// (?tab=keys) so each one can be linked; members see only their tabs.

import { get, post, patch, del, api, query, ApiError, forgetMembers } from '../api.js';
import { h, section, load, table, pager, form, time, badge, num, dl, notice, errorBox, dialog, copyButton, loading, words, confirmAction, choices, stepUp, uid } from '../dom.js';
import { pagedList, timeOf, text as lower } from '../list.js';
import { people, forgetKeys, agentName } from '../people.js';

const tabs = [
  { id: 'keys', label: 'API keys', admin: true, build: keysTab },
  { id: 'members', label: 'Members and invites', build: membersTab },
  { id: 'org', label: 'Organization', build: orgTab },
  { id: 'audit', label: 'Audit log', admin: true, build: auditTab },
];

export async function render(ctx) {
  const mine = tabs.filter((t) => !t.admin || ctx.can('admin'));
  const asked = ctx.query.get('tab');
  const tab = mine.find((t) => t.id === asked) || mine[0];
  ctx.setTitle(tab.label + ' · Settings');
  return h('div', {},
    h('h1', {}, 'Settings'),
    h('nav', { class: 'tabs', 'aria-label': 'Settings sections' },
      mine.map((t) => h('a', { href: '/settings?tab=' + t.id, 'aria-current': t === tab ? 'page' : null }, t.label)),
      ctx.can('admin') ? h('a', { href: '/settings/notifications' }, 'Alert notifications') : null),
    asked && asked !== tab.id ? h('p', { class: 'muted' }, 'That section is for admins only; here is ' + tab.label + ' instead.') : null,
    tab.build(ctx));
}

const put = (path, body) => api('PUT', path, body);

// paged fills a container with one page of a list and its pager.
function paged(container, path, build) {
  const show = (offset) => load(container, async () => {
    const res = await get(path + query({ offset: offset || null }));
    return [build(res.data), pager(res.pagination, show)];
  });
  show(0);
  return show;
}

// secret shows a value the API returns only once.
function secret(title, intro, value, warning) {
  dialog(title, (close) => h('div', {},
    h('p', {}, intro),
    h('pre', { class: 'mono' }, value),
    h('p', { class: 'error', role: 'alert' }, h('strong', {}, 'Copy it now. '), warning),
    h('div', { class: 'actions' }, copyButton(value), h('button', { type: 'button', class: 'secondary', onclick: close }, 'Done'))));
}

// stamp is time() kept on one line, so narrow tables do not grow tall
// (app.css has no rule for times in cells).
function stamp(iso) {
  const t = time(iso);
  t.style.setProperty('white-space', 'nowrap');
  return t;
}

const never = (label) => h('span', { class: 'muted' }, label);

// dayISO turns a date field's day into an RFC 3339 UTC time: the reader's
// midnight at the start of that day, plus `days` and `secs`.
function dayISO(value, days = 0, secs = 0) {
  const [y, m, d] = value.split('-').map(Number);
  const t = new Date(y, m - 1, d + days, 0, 0, secs);
  return isNaN(t) ? value : t.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const today = () => new Date(Date.now() - new Date().getTimezoneOffset() * 60000).toISOString().slice(0, 10);

// ---- API keys (admins) ----

function keysTab() {
  const list = h('div');
  let show;
  const cols = [
    { label: 'Name', cell: (k) => k.name },
    { label: 'Scope', cell: (k) => badge(k.scope) },
    { label: 'Prefix', cell: (k) => (k.prefix ? h('code', {}, k.prefix + '…') : '—') },
    { label: 'Status', cell: (k) => [badge(k.status), k.revoked_at ? h('div', { class: 'small muted' }, 'Revoked ', stamp(k.revoked_at)) : null] },
    { label: 'Created', cell: (k) => stamp(k.created_at) },
    { label: 'Last used', cell: (k) => (k.last_used_at ? stamp(k.last_used_at) : never('Never')) },
    { label: 'Expires', cell: (k) => (k.expires_at ? stamp(k.expires_at) : never('Never')) },
    { label: 'Actions', cell: (k) => (k.status === 'revoked' ? '' : h('button', { type: 'button', class: 'secondary small', onclick: () =>
      confirmAction('Revoke API key', `Revoke "${k.name}" (${k.prefix}…)? Anything using it is refused from the next request on. This cannot be undone.`, 'Revoke key',
        async () => { await del('/api-keys/' + encodeURIComponent(k.id)); forgetKeys(); show(0); }) }, 'Revoke')) },
  ];
  const create = form({
    submit: 'Generate key',
    fields: [
      { name: 'name', label: 'Name', required: true, maxlength: 100, placeholder: 'e.g. SIEM export' },
      { name: 'scope', label: 'Scope', type: 'select', value: 'read', options: [['read', 'Read: view data'], ['write', 'Write: view and change data'], ['admin', 'Admin: everything, keys and members too']] },
      { name: 'expires_at', label: 'Expires on (optional)', type: 'date', min: today() },
    ],
    onSubmit: async (v) => {
      const body = { name: v.name, scope: v.scope };
      if (v.expires_at) body.expires_at = dayISO(v.expires_at, 1, -1); // the last second of that day
      const k = (await post('/api-keys', body)).data;
      forgetKeys();
      create.reset();
      show(0);
      secret('Your new API key', `"${k.name}", ${k.scope} scope. Send it as "Authorization: Bearer <key>".`, k.key,
        'This key will not be shown again: Garrison keeps only a hash of it. If it is lost, revoke it and generate a new one.');
    },
  });
  const page = h('div', {},
    section('Generate a new key', h('p', { class: 'muted small' }, 'Keys let scripts and integrations use the API. Give each one the least scope it needs. A key with an expiry date works until the end of that day (your time); without one it never expires.'), create),
    section('API keys', list));
  show = paged(list, '/api-keys', (rows) => table(cols, rows, 'No API keys yet.', 'API keys'));
  return page;
}

// ---- Members and invites ----

function membersTab(ctx) {
  const admin = ctx.can('admin');
  // A provider's admin also makes technicians and gives them clients.
  const provider = ctx.me.organization?.kind === 'provider';
  const roleNames = { admin: 'an admin', member: 'a member', technician: 'a technician' };
  const list = h('div'), status = h('div', { 'aria-live': 'polite' });
  let showMembers, showInvites;
  const you = (m) => m.id === ctx.me.id;
  // A button rather than a select: a role change is deliberate, and a
  // button keeps its width in a narrow table.
  let soleAdmin = ''; // the organization's one admin may not step down (the API refuses it too)
  const roleCell = (m) => {
    if (!admin || m.id === soleAdmin) return badge(m.role);
    const roles = provider ? ['admin', 'technician', 'member'] : ['admin', 'member'];
    const b = (to) => h('button', { type: 'button', class: 'secondary small', onclick: async (ev) => {
      const btn = ev.currentTarget;
      btn.disabled = true;
      try {
        // Granting or taking admin needs a password given lately.
        await stepUp(() => patch('/org/members/' + encodeURIComponent(m.id), { role: to }));
        forgetMembers(); // roles are shown beside names
        status.replaceChildren(notice(`${m.name} is now ${roleNames[to]}.`));
        // Stepping down changes what this page may show.
        if (you(m)) { await ctx.refreshMe(); return ctx.navigate('/settings?tab=members'); }
        showMembers(0);
      } catch (err) {
        status.replaceChildren(errorBox(err));
        btn.disabled = false;
      }
    } }, 'Make ' + to);
    return h('div', { class: 'actions' }, badge(m.role), roles.filter((r) => r !== m.role).map(b));
  };
  const cols = [
    { label: 'Name', cell: (m) => [m.name, you(m) ? h('span', { class: 'muted' }, ' (you)') : null] },
    { label: 'E-mail', cell: (m) => m.email },
    { label: 'Role', cell: roleCell },
    { label: 'Address confirmed', cell: (m) => (m.email_verified ? 'Yes' : never('Not yet')) },
    { label: 'Joined', cell: (m) => stamp(m.created_at) },
  ];
  if (admin && provider) cols.splice(3, 0, { label: 'Clients', cell: (m) => reachCell(ctx, m) });
  if (admin) cols.push({ label: 'Actions', cell: (m) => (you(m) ? '' : h('button', { type: 'button', class: 'secondary small', onclick: () =>
    confirmAction('Remove member', `Remove ${m.name} (${m.email})? Their account is deleted and their sessions end at once.`, 'Remove member',
      async () => { await del('/org/members/' + encodeURIComponent(m.id)); forgetMembers(); status.replaceChildren(notice(`${m.name} was removed.`)); showMembers(0); }) }, 'Remove')) });
  const page = h('div', {}, section('Members', status, list));
  showMembers = paged(list, '/org/members', (rows) => {
    const admins = rows.filter((m) => m.role === 'admin');
    soleAdmin = admins.length === 1 ? admins[0].id : '';
    return table(cols, rows, 'No members.', 'Members');
  });
  if (!admin) {
    page.append(h('p', { class: 'muted' }, 'Only admins can invite people or change roles.'));
    return page;
  }
  const invites = h('div');
  const invite = form({
    submit: 'Send invitation',
    fields: [
      { name: 'email', label: 'E-mail address', type: 'email', required: true, autocomplete: 'off' },
      { name: 'role', label: 'Role', type: 'select', value: 'member',
        options: provider ? [['member', 'Member: works in this organization only'], ['technician', 'Technician: works in the clients, not their settings'], ['admin', 'Admin']]
          : [['member', 'Member'], ['admin', 'Admin']] },
    ],
    onSubmit: async (v) => {
      const inv = (await post('/org/invites', v)).data;
      invite.reset();
      showInvites(0);
      secret('Invitation sent', `We mailed ${inv.email} an invitation to join as ${inv.role}. You can also send them this link; it works once, only for that address, until ${new Date(inv.expires_at).toLocaleDateString()}.`,
        location.origin + '/register?token=' + encodeURIComponent(inv.token), 'This link will not be shown again.');
    },
  });
  page.append(
    section('Invite someone',
      h('p', { class: 'muted small' }, 'Invitations last seven days and can be used only by the invited address.',
        ctx.me.email_verified ? null : ' Confirm your own address first: only confirmed users can invite.'),
      invite),
    section('Invitations', invites));
  showInvites = paged(invites, '/org/invites', (rows) => table([
    { label: 'E-mail', cell: (i) => i.email },
    { label: 'Role', cell: (i) => badge(i.role) },
    { label: 'Status', cell: (i) => badge(i.status) },
    { label: 'Sent', cell: (i) => stamp(i.created_at) },
    { label: 'Expires', cell: (i) => stamp(i.expires_at) },
    { label: 'Accepted', cell: (i) => stamp(i.accepted_at) },
  ], rows, 'No invitations yet.', 'Invitations'));
  return page;
}

// reachCell says which clients a provider's admin or technician reaches
// (GET /org/members/:id/clients), with the way to change it.
function reachCell(ctx, m) {
  if (m.role === 'member') return never('None: members work in this organization only');
  const box = h('div', {}, loading());
  const clients = (ctx.me.clients || []).filter((c) => c.provider_id === ctx.me.org_id);
  const show = (r) => {
    const mine = clients.filter((c) => r.client_ids.includes(c.id));
    box.replaceChildren(h('div', {}, r.all_clients ? 'All clients' : mine.length ? mine.slice(0, 3).map((c) => c.name).join(', ') + (mine.length > 3 ? ` and ${mine.length - 3} more` : '') : never('None')),
      h('button', { type: 'button', class: 'secondary small', 'aria-label': `Choose the clients ${m.name} reaches`, onclick: () => assign(ctx, m, r, clients, show) }, 'Choose…'));
  };
  get('/org/members/' + encodeURIComponent(m.id) + '/clients').then((r) => show(r.data), (err) => box.replaceChildren(errorBox(err)));
  return box;
}

// assign chooses the clients a person reaches: every one (present and
// future), or those checked (PUT /org/members/:id/clients).
function assign(ctx, m, current, clients, show) {
  dialog(`Clients ${m.name} reaches`, (close) => {
    const all = h('input', { type: 'checkbox', id: uid('all'), checked: current.all_clients, onchange: () => sync() });
    const boxes = clients.map((c) => h('input', { type: 'checkbox', id: uid('c'), value: c.id, checked: current.client_ids.includes(c.id) }));
    const sync = () => { for (const b of boxes) b.disabled = all.checked; };
    sync();
    const status = h('div', { 'aria-live': 'polite' });
    const save = h('button', { type: 'button', onclick: async () => {
      const ids = boxes.filter((b) => b.checked).map((b) => b.value);
      if (!all.checked && !ids.length) return status.replaceChildren(errorBox(new Error('Choose at least one client, or all clients.')));
      save.disabled = true;
      try {
        const r = (await put('/org/members/' + encodeURIComponent(m.id) + '/clients', { client_ids: all.checked ? [] : ids })).data;
        show(r);
        close();
        if (m.id === ctx.me.id) { await ctx.refreshMe(); ctx.navigate('/settings?tab=members', true); }
      } catch (err) { status.replaceChildren(errorBox(err)); save.disabled = false; }
    } }, 'Save');
    return h('div', {},
      h('p', {}, `${m.name} (${words(m.role)}) may act in the clients chosen here, and sees them in the Clients page and the organization switcher.`),
      status,
      h('div', { class: 'field check' }, all, h('label', { for: all.id }, h('strong', {}, 'All clients'), ', present and future')),
      clients.length ? h('fieldset', { class: 'field radios' }, h('legend', {}, 'Or only these clients'),
        h('ul', { class: 'plain pick' }, clients.map((c, i) => h('li', { class: 'field check' }, boxes[i], h('label', { for: boxes[i].id }, c.name)))))
        : h('p', { class: 'muted' }, 'There are no clients yet.'),
      h('div', { class: 'actions' }, save, h('button', { type: 'button', class: 'secondary', onclick: close }, 'Cancel')));
  });
}

// ---- Organization and account ----

function orgTab(ctx) {
  const org = h('div'), me = ctx.me;
  load(org, async () => {
    const o = (await get('/org')).data;
    const limits = o.limits && typeof o.limits === 'object' ? Object.entries(o.limits) : [];
    const kind = { standalone: 'Standalone', provider: 'Provider: serves client organizations', client: 'Client of a provider' }[o.kind] || o.kind;
    return [dl([
      ['Name', o.name],
      o.kind ? ['Kind', [kind, o.kind !== 'client' && ctx.can('admin') ? [' · ', h('a', { href: '/clients' }, o.kind === 'provider' ? 'Clients' : 'Add a client')] : null]] : null,
      ['Plan', badge(o.plan)],
      ['Members', num(o.members_count)],
      ['Created', time(o.created_at)],
      ['ID', h('code', {}, o.id)],
    ]), limits.length ? [h('h3', {}, 'Plan limits'), dl(limits.map(([k, v]) => [words(k), typeof v === 'number' ? num(v) : String(v)]))] : null];
  });

  const password = form({
    submit: 'Change password',
    fields: [
      { name: 'current_password', label: 'Current password', type: 'password', required: true, autocomplete: 'current-password' },
      { name: 'new_password', label: 'New password', type: 'password', required: true, autocomplete: 'new-password', hint: '12 to 256 characters.' },
      { name: 'repeat', label: 'New password again', type: 'password', required: true, autocomplete: 'new-password' },
    ],
    onSubmit: async (v) => {
      if (v.new_password !== v.repeat) throw new ApiError(400, 'validation_error', 'Invalid request: repeat does not match the new password', ['repeat']);
      await post('/auth/change-password', { current_password: v.current_password, new_password: v.new_password });
      password.reset();
      password.status.replaceChildren(notice('Password changed. Every other session has ended; this one goes on.'));
    },
  });

  const outStatus = h('div', { 'aria-live': 'polite' });
  const out = h('button', { type: 'button', class: 'secondary', onclick: async () => {
    out.disabled = true;
    try {
      await post('/auth/logout-all', {});
      await ctx.refreshMe();
      ctx.navigate('/login', false, { reason: 'Every session of your account has ended.' });
    } catch (err) { outStatus.replaceChildren(errorBox(err)); out.disabled = false; }
  } }, 'Sign out everywhere');

  const page = h('div', {},
    h('div', { class: 'grid wide' },
      section('Organization', org),
      section('Your profile', dl([
        ['Name', me.name],
        ['E-mail', me.email],
        ['Role', badge(me.role)],
        ['Address confirmed', me.email_verified ? ['Yes, ', time(me.email_verified_at)] : 'Not yet: open the link in the mail we sent you'],
        ['Member since', time(me.created_at)],
      ]))),
    h('div', { class: 'grid wide' },
      section('Change password', password),
      section('Sessions', h('p', {}, 'Sign out on every browser and device where your account is signed in, this one included. API keys keep working.'), outStatus, out)));
  if (ctx.can('admin')) page.append(dangerZone(ctx));
  return page;
}

function dangerZone(ctx) {
  const name = ctx.me.org;
  const open = () => dialog('Delete organization', (close) => {
    const f = form({
      submit: 'Delete organization forever',
      fields: [{ name: 'confirm', label: `Type "${name}" to confirm`, required: true, autocomplete: 'off' }],
      onSubmit: async (v) => {
        await stepUp(() => del('/org', { confirm: v.confirm }));
        close();
        await ctx.refreshMe();
        ctx.navigate('/login', false, { reason: `The organization "${name}" and everything it owned were deleted.` });
      },
    });
    f.querySelector('button[type=submit]').classList.add('danger');
    return h('div', {},
      h('p', {}, 'This deletes ', h('strong', {}, name), ' and everything it owns: every member account, API key, event, alert, ticket, report and lead. Every session and key stops working at once. It cannot be undone.'),
      f);
  });
  return section('Danger zone',
    h('p', {}, 'Delete this organization and all its data.'),
    h('button', { type: 'button', class: 'danger', onclick: open }, 'Delete organization…'));
}

// ---- Audit log (admins) ----

// The audit log's actions, in words.
const actionNames = {
  'auth.register': 'Registered', 'auth.login': 'Signed in', 'auth.login_failed': 'Sign-in refused', 'auth.logout': 'Signed out',
  'auth.logout_all': 'Signed out everywhere', 'auth.change_password': 'Changed password', 'auth.reset_password': 'Reset password',
  'auth.verify_email': 'Confirmed address', 'api_key.create': 'Created an API key', 'api_key.revoke': 'Revoked an API key',
  'org.invite': 'Invited someone', 'org.member_update': 'Changed a member\'s role', 'org.member_remove': 'Removed a member',
  'org.delete': 'Deleted the organization', 'org.plan': 'Changed the plan', 'alert.update': 'Changed alerts', 'alert.acknowledge': 'Acknowledged an alert',
  'ticket.update': 'Changed a ticket', 'agent_run.start': 'Started an agent run', 'agent_run.cancel': 'Cancelled an agent run',
  'compliance.audit': 'Ran a compliance audit', 'compliance.attest': 'Attested a control', 'compliance.remediate': 'Remediated a gap',
  'intel.import': 'Imported intelligence', 'lead.status': 'Moved a lead',
};
const actions = Object.keys(actionNames);

// Targets are ids; their prefix says what they are and which page shows them.
const targetPages = { alr: ['Alert', '/alerts/'], tkt: ['Ticket', '/tickets/'], lead: ['Lead', '/leads/'], rpt: ['Compliance report', '/compliance/reports/'],
  run: ['Agent run', '/agents/runs/'], cvw: ['Watched CVE', '/cve-watchlist/'] };
const targetWords = { inv: 'An invitation', org: 'The organization', imp: 'An intelligence import', gap: 'A compliance gap', rem: 'A remediation' };

function auditTab(ctx) {
  const q = ctx.query;
  const f = { action: q.get('action') || '', actor: q.get('actor') || '', from: q.get('from') || '', to: q.get('to') || '' };
  const namerP = people(ctx);
  let namer = null;
  const box = h('div', {}, loading());

  // The actor is chosen by name: members and API keys (the log keeps ids).
  namerP.then((n) => {
    namer = n;
    const keys = n.keys || [];
    const filters = form({
      submit: 'Filter', className: 'inline',
      fields: [
        { name: 'action', label: 'Action', type: 'select', value: f.action, options: choices([['', 'All actions'], ...actions.map((a) => [a, actionNames[a]])], f.action) },
        { name: 'actor', label: 'Who', type: 'select', value: f.actor, options: choices([['', 'Anyone'],
          ...n.members.map((m) => [m.id, `${m.name} (${m.email})`]), ...keys.map((k) => [k.id, `API key “${k.name}”`]), ['garrison', 'Garrison itself']], f.actor) },
        { name: 'from', label: 'From', type: 'date', value: f.from },
        { name: 'to', label: 'To (inclusive)', type: 'date', value: f.to },
      ],
      onSubmit: async (v) => ctx.navigate('/settings' + query({ tab: 'audit', ...v })),
    });
    filters.classList.add('toolbar');
    if (Object.values(f).some(Boolean)) {
      filters.querySelector('.actions').append(h('a', { href: '/settings?tab=audit' }, 'Clear filters'));
    }
    box.replaceChildren(filters, list.node);
    list.reload();
  });

  const who = (id) => h('a', { href: '/settings' + query({ tab: 'audit', actor: id }), title: 'Show only their entries' }, namer.name(id, { you: false }));
  const target = (id, detail) => {
    const kind = String(id).split('_')[0];
    if (kind === 'usr' || kind === 'key') return namer.name(id, { you: false });
    if (kind === 'run' && detail?.agent) return h('a', { href: `/agents/runs/${encodeURIComponent(id)}?agent=${encodeURIComponent(detail.agent)}` }, `${agentName(detail.agent)} run`);
    if (targetPages[kind]) return h('a', { href: targetPages[kind][1] + encodeURIComponent(id) }, targetPages[kind][0]);
    if (targetWords[kind]) return h('span', { title: id }, targetWords[kind]);
    return h('code', {}, id);
  };
  const params = { action: f.action, actor: f.actor, from: f.from && dayISO(f.from), to: f.to && dayISO(f.to, 1) };
  // The API lists the log newest first and sorts it no other way.
  const list = pagedList({
    caption: 'Audit log', limit: 50, what: 'the audit log', natural: 'newest first', sort: { key: 'at', order: 'desc' },
    emptyMessage: 'No audit entries match these filters.',
    fetch: ({ offset, limit }) => get('/audit-log' + query({ ...params, limit, offset: offset || null })),
    columns: [
      { key: 'at', label: 'Time', sort: (e) => timeOf(e.at), server: (order) => (order === 'desc' ? {} : null), cell: (e) => stamp(e.at), descWords: 'newest first', ascWords: 'oldest first' },
      { key: 'action', label: 'Action', first: 'asc', sort: (e) => actionNames[e.action] || e.action, cell: (e) => h('span', { title: e.action }, actionNames[e.action] || e.action) },
      { key: 'actor', label: 'Who', first: 'asc', sort: (e) => (e.actor ? lower(namer.name(e.actor, { you: false })) : null), cell: (e) => (e.actor ? who(e.actor) : never('Unknown')) },
      { key: 'target', label: 'Target', first: 'asc', sort: (e) => e.target || null, cell: (e) => (e.target ? target(e.target, e.detail) : '—') },
      { key: 'ip', label: 'Client IP', first: 'asc', sort: (e) => e.ip || null, cell: (e) => h('span', { class: 'mono' }, e.ip || '—') },
      { key: 'request', label: 'Request ID', cell: (e) => h('span', { class: 'mono small' }, e.request_id || '—') },
      { key: 'detail', label: 'Details', cell: (e) => {
        const d = Object.entries(e.detail || {});
        return d.length ? d.map(([k, v]) => h('div', { class: 'small' }, h('span', { class: 'muted' }, words(k) + ': '), h('span', { class: 'mono' }, v))) : '—';
      } },
    ],
  });
  list.node.classList.add('wide-60');
  return h('div', {},
    h('p', { class: 'muted' }, 'Security-relevant changes. Entries cannot be changed or removed.'),
    box);
}
