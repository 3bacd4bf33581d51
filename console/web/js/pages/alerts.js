// Alerts: the list a SOC works from (filtered by status, severity and time
// range, sortable, paged, refreshed on request, all kept in the address),
// with bulk resolution and assignment of the rows selected; and one alert
// with its events and history, to acknowledge, assign, resolve (saying
// whether it was real) or reopen.

import { get, patch, post, query, ApiError } from '../api.js';
import { h, load, table, time, badge, form, section, dl, notice, num, words, Words, choices, dialog, errorBox, notFound } from '../dom.js';
import { severities } from '../vocab.js';
import { pagedList, withParams, severityRank, timeOf, text } from '../list.js';
import { readRange, rangePicker } from '../timerange.js';
import { autoRefresh } from '../refresh.js';
import { people, personNode } from '../people.js';

const LIMIT = 50;

// What a resolution says about the alert (the API's dispositions).
export const dispositions = [
  ['true_positive', 'True positive', 'Real and malicious: an attack or a compromise.'],
  ['false_positive', 'False positive', 'The detection was wrong: nothing of the kind happened.'],
  ['benign', 'Benign', 'Real activity, and allowed: a scan you ordered, an admin tool.'],
  ['duplicate', 'Duplicate', 'Another alert already covers it.'],
];
const dispositionName = Object.fromEntries(dispositions.map(([v, l]) => [v, l]));

const count = (n, one, many = one + 's') => `${num(n)} ${n === 1 ? one : many}`;

// ruleLine credits the detection rule behind an alert: its title, level
// and author (the Detection Rule License asks every alert to keep the
// author), linked to the rule as published.
export function ruleLine(rule) {
  return h('div', { class: 'small rule-line' }, 'Rule: ',
    rule.link ? h('a', { href: rule.link, rel: 'noopener noreferrer', target: '_blank' }, rule.title) : rule.title,
    ` (${rule.level}) by ${rule.author || 'an unnamed author'}`);
}

// ruleSection shows the detection rule behind an alert, with its ATT&CK tags.
function ruleSection(rule) {
  const tactics = rule.tags.filter((t) => !/^attack\.t\d/.test(t));
  const techniques = rule.tags.filter((t) => /^attack\.t\d/.test(t));
  return section('Detection rule', dl([
    ['Rule', rule.link ? h('a', { href: rule.link, rel: 'noopener noreferrer', target: '_blank' }, rule.title) : rule.title],
    ['Level', badge(rule.level === 'informational' ? 'info' : rule.level)],
    ['Author', rule.author || null],
    ['Id', h('span', { class: 'mono' }, rule.id)],
    ['ATT&CK', rule.tags.length ? h('ul', { class: 'tags' }, [...tactics, ...techniques].map((t) => h('li', { class: 'mono' }, t.replace(/^attack\./, '')))) : null],
    ['Licence', rule.link ? h('span', { class: 'small' }, 'SigmaHQ, ', h('a', { href: 'https://github.com/SigmaHQ/Detection-Rule-License', rel: 'noopener noreferrer', target: '_blank' }, 'Detection Rule License 1.1')) : 'Your organization\'s own rule'],
  ]));
}

export async function render(ctx) {
  return ctx.view === 'detail' ? detail(ctx) : list(ctx);
}

// ---- The list ----

function list(ctx) {
  const q = ctx.query;
  const f = { status: q.get('status') || '', severity: q.get('severity') || '' };
  const range = readRange(q, 'all');
  const namerP = people(ctx);
  let namer = null;
  const writer = ctx.can('member');

  const filters = form({
    className: 'inline toolbar',
    submit: 'Apply',
    fields: [
      { name: 'status', label: 'Status', type: 'select', value: f.status, options: choices([['', 'Any'], ['open', 'Open'], ['resolved', 'Resolved']], f.status) },
      { name: 'severity', label: 'Severity', type: 'select', value: f.severity,
        options: choices([['', 'Any'], ['critical,high', 'High or critical'], ...severities.map((s) => [s, Words(s)])], f.severity) },
    ],
    onSubmit: async (v) => ctx.navigate(withParams({ status: v.status, severity: v.severity, page: '' })),
  });
  filters.setAttribute('role', 'search');
  filters.setAttribute('aria-label', 'Filter alerts');
  const filtered = f.status || f.severity || range.key !== 'all';

  // The selection: ids of alerts on the page shown.
  const selected = new Set();
  let shown = [];
  const message = h('div', { 'aria-live': 'polite' });
  const selectedText = h('span', { class: 'selected-count', 'aria-live': 'polite' }, 'No alert selected');
  const resolveBtn = h('button', { type: 'button', disabled: true, onclick: () => resolveMany(chosen(), namer, done) }, 'Resolve…');
  const assignBtn = h('button', { type: 'button', class: 'secondary', disabled: true, onclick: () => assignMany(chosen(), namer, done) }, 'Assign…');
  const clearBtn = h('button', { type: 'button', class: 'secondary small', disabled: true, onclick: () => { selected.clear(); sync(); } }, 'Clear selection');
  const chosen = () => shown.filter((a) => selected.has(a.id));
  const allBox = h('input', { type: 'checkbox', onchange: () => {
    for (const a of shown) allBox.checked ? selected.add(a.id) : selected.delete(a.id);
    sync();
  } });
  // sync shows the selection: the boxes, the select-all box, the count
  // and the actions it allows.
  function sync() {
    for (const id of [...selected]) if (!shown.some((a) => a.id === id)) selected.delete(id);
    for (const box of list.node.querySelectorAll('input[data-alert]')) box.checked = selected.has(box.dataset.alert);
    const n = selected.size;
    allBox.checked = n > 0 && n === shown.length;
    allBox.indeterminate = n > 0 && n < shown.length;
    selectedText.textContent = n ? `${count(n, 'alert')} selected` : 'No alert selected';
    resolveBtn.disabled = assignBtn.disabled = clearBtn.disabled = n === 0;
  }
  // done shows the list as the change left it, then says what changed.
  const done = async (text) => {
    selected.clear();
    await list.reload({ quiet: true });
    message.replaceChildren(notice(text));
  };

  const columns = [
    writer ? { key: 'select', label: 'Select', class: 'select',
      head: () => h('label', { class: 'select-all' }, allBox, h('span', { class: 'select-all-text sr-only' }, 'Select all on this page')),
      cell: (a) => h('input', { type: 'checkbox', 'data-alert': a.id, 'aria-label': `Select ${a.title} on ${a.affected_asset}`, checked: selected.has(a.id),
        onchange: (ev) => { ev.target.checked ? selected.add(a.id) : selected.delete(a.id); sync(); } }) } : null,
    { key: 'severity', label: 'Severity', cell: (a) => badge(a.severity), sort: (a) => severityRank(a.severity), descWords: 'most severe first', ascWords: 'least severe first' },
    { key: 'title', label: 'Alert', first: 'asc', sort: (a) => text(a.title),
      cell: (a) => [h('a', { href: '/alerts/' + encodeURIComponent(a.id) }, a.title), h('div', { class: 'small muted' }, words(a.category)),
        a.rule ? ruleLine(a.rule) : null] },
    { key: 'asset', label: 'Asset', first: 'asc', sort: (a) => a.affected_asset, cell: (a) => h('span', { class: 'mono' }, a.affected_asset || '—') },
    { key: 'status', label: 'Status', first: 'asc', sort: (a) => a.status + (a.disposition || '') + (a.acknowledged_at ? 'a' : ''), cell: statusCell },
    { key: 'assignee', label: 'Assignee', first: 'asc', sort: (a) => (a.assignee ? text(namer.name(a.assignee, { you: false })) : null),
      cell: (a) => personNode(namer, a.assignee, 'Nobody') },
    { key: 'events', label: 'Events', class: 'num', sort: (a) => a.event_count, cell: (a) => num(a.event_count) },
    { key: 'last_seen', label: 'Last seen', sort: (a) => timeOf(a.last_seen), server: (order) => (order === 'desc' ? {} : null),
      cell: (a) => time(a.last_seen), descWords: 'most recent first', ascWords: 'least recent first' },
  ].filter(Boolean);

  const list = pagedList({
    caption: 'Alerts', limit: LIMIT, filters, columns, what: 'alerts', natural: 'most recently active first',
    sort: { key: 'last_seen', order: 'desc' },
    emptyMessage: filtered ? 'No alerts match these filters in this time range.' : 'No alerts. High and critical events, and bursts of activity, raise alerts here.',
    rowAttrs: (a) => ({ 'data-id': a.id }),
    fetch: async ({ offset, limit }) => {
      namer = await namerP;
      return alertPage(f, range, offset, limit);
    },
    shown: (rows) => { shown = rows; sync(); },
  });
  list.node.classList.add('wide-60');
  list.reload();

  return h('div', {},
    h('h1', {}, 'Alerts'),
    h('div', { class: 'toolbar view-bar' },
      rangePicker({ range, apply: (p) => ctx.navigate(withParams({ ...p, page: '' })) }),
      filters,
      autoRefresh({ q, tick: () => list.reload({ quiet: true }) })),
    range.key !== 'all' ? h('p', { class: 'muted small' }, `Alerts whose latest event falls in the range (${range.label.toLowerCase()}).`) : null,
    filtered ? h('p', { class: 'small' }, h('a', { href: '/alerts' }, 'Clear filters and time range')) : null,
    message,
    writer ? h('div', { class: 'bulk-bar', role: 'group', 'aria-label': 'Change the selected alerts' }, selectedText, resolveBtn, assignBtn, clearBtn) : null,
    list.node);
}

function statusCell(a) {
  return [badge(a.status),
    a.disposition ? h('div', { class: 'small' }, dispositionName[a.disposition] || words(a.disposition)) : null,
    a.status === 'open' && a.acknowledged_at ? h('div', { class: 'small muted' }, 'Acknowledged') : null];
}

// alertPage reads one page of the alerts. The API lists alerts most
// recently active first and has no time filter, so a time range is the
// run of the list whose last activity falls in it: its two ends are found
// in that order (alertWindow) and the page is read from within them.
async function alertPage(f, range, offset, limit) {
  if (!range.from && !range.to) return get('/alerts' + query({ ...f, limit, offset }));
  const { start, end } = await alertWindow(f, range);
  const total = Math.max(0, end - start);
  const n = Math.max(0, Math.min(limit, total - offset));
  const res = n ? await get('/alerts' + query({ ...f, limit: n, offset: start + offset })) : { data: [] };
  // The list may have moved between the reads: keep only what is in range.
  const data = res.data.filter((a) => (!range.from || a.last_seen >= range.from) && (!range.to || a.last_seen <= range.to));
  return { data, pagination: { total, limit, offset, next_offset: offset + limit < total ? offset + limit : null } };
}

const BLOCK = 200;

async function alertWindow(f, range) {
  const start = range.to ? await firstWhere(f, (a) => a.last_seen <= range.to) : 0;
  const end = range.from ? await firstWhere(f, (a) => a.last_seen < range.from) : Infinity;
  if (end === Infinity) {
    const all = await get('/alerts' + query({ ...f, limit: 0 }));
    return { start, end: all.pagination.total };
  }
  return { start, end: Math.max(start, end) };
}

// firstWhere finds the first position in the list where pred holds, pred
// being false before it and true after (the list is in time order): a
// block of 200 at a time, halving the span between blocks, so a range of
// the newest 200 alerts costs one read and a deep one a few more.
async function firstWhere(f, pred) {
  const block = (offset) => get('/alerts' + query({ ...f, limit: BLOCK, offset }));
  let res = await block(0);
  let i = res.data.findIndex(pred);
  if (i >= 0) return i;
  let lo = res.data.length, hi = res.pagination.total;
  while (lo < hi) {
    const mid = hi - lo <= BLOCK ? lo : lo + Math.floor((hi - lo) / 2);
    res = await block(mid);
    if (!res.data.length) { hi = mid; continue; }
    i = res.data.findIndex(pred);
    if (i === 0) hi = mid;
    else if (i > 0) return mid + i;
    else lo = mid + res.data.length;
  }
  return lo;
}

// resolveMany asks for the disposition and a note, says how many alerts
// it will change, then resolves them in one change (all or none).
function resolveMany(alerts, namer, done) {
  const open = alerts.filter((a) => a.status === 'open');
  const skipped = alerts.length - open.length;
  dialog(open.length ? `Resolve ${count(open.length, 'alert')}` : 'Resolve alerts', (close) => {
    if (!open.length) {
      return h('div', {}, h('p', {}, alerts.length === 1 ? 'The selected alert is already resolved.' : 'Every selected alert is already resolved.'),
        h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', onclick: close }, 'Close')));
    }
    const f = form({
      submit: `Resolve ${count(open.length, 'alert')}`, cancel: close,
      fields: [
        { name: 'disposition', label: open.length === 1 ? 'Was it real?' : 'Were they real?', type: 'radio', required: true, options: dispositions },
        { name: 'note', label: 'Note', type: 'textarea', rows: 3, maxlength: 2000,
          hint: open.length === 1 ? 'What was done, for whoever reads this later (optional).' : 'What was done (optional); each alert keeps the same note.' },
      ],
      onSubmit: async (v) => {
        if (!v.disposition) {
          throw new ApiError(400, 'validation_error', 'Invalid request: disposition is required: say whether the alerts were real', ['disposition']);
        }
        const res = await patch('/alerts', { ids: open.map((a) => a.id), status: 'resolved', disposition: v.disposition, note: v.note });
        close();
        await done(`${count(res.data.updated, 'alert')} resolved as ${dispositionName[v.disposition].toLowerCase()}.`);
      },
    });
    return h('div', {}, chosenList(open, 'This resolves'),
      skipped ? h('p', { class: 'muted small' }, `${count(skipped, 'selected alert is', 'selected alerts are')} already resolved and stay as they are.`) : null,
      f);
  });
}

// assignMany gives the alerts to one member, or to nobody.
function assignMany(alerts, namer, done) {
  const people = [...namer.members].sort((a, b) => (a.name || a.email).localeCompare(b.name || b.email));
  dialog(`Assign ${count(alerts.length, 'alert')}`, (close) => h('div', {}, chosenList(alerts, 'This changes'), form({
    submit: `Assign ${count(alerts.length, 'alert')}`, cancel: close,
    fields: [
      { name: 'assignee', label: 'Assign to', type: 'select', required: true,
        options: [['', 'Choose a person…'], ...people.map((m) => [m.id, `${m.name} (${m.email})`]), ['-', 'Nobody: release them']] },
      { name: 'note', label: 'Note', type: 'textarea', rows: 2, maxlength: 2000, hint: 'Why, for the history (optional).' },
    ],
    onSubmit: async (v) => {
      if (!v.assignee) throw new ApiError(400, 'validation_error', 'Invalid request: assignee is required: choose a person, or nobody', ['assignee']);
      const body = { ids: alerts.map((a) => a.id), assignee: v.assignee === '-' ? null : v.assignee };
      if (v.note) body.note = v.note;
      const res = await patch('/alerts', body);
      close();
      await done(v.assignee === '-' ? `${count(res.data.updated, 'alert')} released: nobody is assigned.`
        : `${count(res.data.updated, 'alert')} assigned to ${namer.name(v.assignee, { you: false })}.`);
    },
  })));
}

// chosenList names the alerts a bulk change will touch (the first few).
function chosenList(alerts, verb) {
  return [h('p', {}, `${verb} `, h('strong', { class: 'change-count' }, count(alerts.length, 'alert')), ':'),
    h('ul', { class: 'chosen small' }, alerts.slice(0, 5).map((a) => h('li', {}, badge(a.severity), ' ', a.title, ' · ', h('span', { class: 'mono' }, a.affected_asset))),
      alerts.length > 5 ? h('li', { class: 'muted' }, `and ${num(alerts.length - 5)} more`) : null)];
}

// ---- One alert ----

async function detail(ctx) {
  const id = ctx.params.id;
  const path = '/alerts/' + encodeURIComponent(id);
  const page = h('div');
  const namerP = people(ctx);

  async function show(message) {
    const [a, namer] = await Promise.all([get(path).then((r) => r.data), namerP]);
    const who = (v, empty) => personNode(namer, v, empty);
    ctx.setTitle(a.title);
    const redraw = async (m) => page.replaceChildren(...(await show(m)).filter(Boolean));
    return [
      h('p', { class: 'small' }, h('a', { href: '/alerts' }, '← All alerts')),
      h('h1', {}, a.title, ' ', badge(a.severity), ' ', badge(a.status)),
      message ? notice(typeof message === 'function' ? message(a) : message) : null,
      h('div', { class: 'grid wide' },
        section('Alert',
          dl([
            ['Severity', badge(a.severity)],
            ['Status', [badge(a.status), a.disposition ? ` ${dispositionName[a.disposition] || words(a.disposition)}` : '']],
            ['Category', words(a.category)],
            ['Affected asset', h('span', { class: 'mono' }, a.affected_asset || '—')],
            ['Indicator', a.indicator ? h('span', { class: 'mono' }, a.indicator) : null],
            ['Events', num(a.event_count)],
            ['First seen', time(a.first_seen)],
            ['Last seen', time(a.last_seen)],
            ['Raised', time(a.created_at)],
            ['Assignee', who(a.assignee, 'Nobody')],
            ['Acknowledged', a.acknowledged_at ? [who(a.acknowledged_by), ', ', time(a.acknowledged_at)] : h('span', { class: 'muted' }, 'Not yet')],
            a.resolved_at ? ['Resolved', [who(a.resolved_by), ', ', time(a.resolved_at)]] : null,
            a.disposition ? ['Disposition', dispositionName[a.disposition] || words(a.disposition)] : null,
            ['Note', a.note || null],
            ['Incident', a.incident_id ? h('a', { href: '/incidents/' + encodeURIComponent(a.incident_id), class: 'mono' }, a.incident_id) : null],
            ['Ticket', a.ticket_id ? ticketLink(a.ticket_id) : ctx.can('member') ? openTicket(path, redraw) : null],
            ['Updated', time(a.updated_at)],
          ])),
        section('Recommended action', h('p', {}, a.recommended_action),
          ctx.can('member') ? work(ctx, a, namer, path, redraw) : null),
        a.rule ? ruleSection(a.rule) : null),
      section('History', history(a.history || [], namer)),
      section(a.event_count > (a.events || []).length ? `Events (newest ${num((a.events || []).length)} of ${num(a.event_count)})` : 'Events',
        table([
          { label: 'Time', cell: (e) => time(e.timestamp) },
          { label: 'Severity', cell: (e) => badge(e.severity) },
          { label: 'Type', cell: (e) => words(e.type) },
          { label: 'Source', cell: (e) => e.source },
          { label: 'Asset', cell: (e) => h('span', { class: 'mono' }, e.asset) },
          { label: 'Message', cell: (e) => e.message },
        ], a.events || [], 'No events are kept for this alert (they may have passed the retention period).', 'Events behind this alert')),
    ];
  }

  await load(page, async () => {
    try {
      return await show();
    } catch (err) {
      return notFound(err, 'Alert', 'There is no such alert in your organization.', '/alerts', 'Back to the alerts');
    }
  });
  return page;
}

const ticketLink = (id) => h('a', { href: '/tickets/' + encodeURIComponent(id), class: 'mono' }, id);

// openTicket opens the alert's ticket; when it has one already (409), the
// page is drawn again and says which.
function openTicket(path, redraw) {
  const button = h('button', { type: 'button', class: 'secondary small', onclick: async () => {
    button.disabled = true;
    try {
      await post(path + '/ticket');
      await redraw('A ticket was opened for this alert.');
    } catch (err) {
      if (err.status === 409) return redraw((a) => [err.message.replace(/\.?$/, ': '), ticketLink(a.ticket_id), '.']);
      box.replaceChildren(button, errorBox(err));
      button.disabled = false;
    }
  } }, 'Open a ticket');
  const box = h('div', {}, button);
  return box;
}

// work is what a person does with the alert: acknowledge it, assign it,
// resolve it with a disposition, or reopen it.
function work(ctx, a, namer, path, redraw) {
  const status = h('div', { 'aria-live': 'polite' });
  const act = async (button, fn) => {
    button.disabled = true;
    try { await fn(); } catch (err) { status.replaceChildren(errorBox(err)); button.disabled = false; }
  };
  const ack = a.acknowledged_at ? null : h('button', { type: 'button', class: 'secondary', onclick: (ev) => act(ev.currentTarget, async () => {
    await post(path + '/acknowledge', {});
    await redraw('Acknowledged: the team can see someone is on it.');
  }) }, 'Acknowledge');
  const mine = a.assignee === ctx.me.id;
  const take = mine ? null : h('button', { type: 'button', class: 'secondary', onclick: (ev) => act(ev.currentTarget, async () => {
    await patch(path, { assignee: ctx.me.id });
    await redraw('Assigned to you.');
  }) }, 'Assign to me');
  const people = [...namer.members].sort((x, y) => (x.name || x.email).localeCompare(y.name || y.email));
  const assign = form({
    className: 'inline', submit: 'Assign',
    fields: [{ name: 'assignee', label: 'Assignee', type: 'select', value: a.assignee || '',
      options: [['', 'Nobody'], ...people.map((m) => [m.id, `${m.name} (${m.email})`])] }],
    onSubmit: async (v) => {
      if ((v.assignee || null) === (a.assignee || null)) throw new Error('That is who it is assigned to already.');
      await patch(path, { assignee: v.assignee || null });
      await redraw(v.assignee ? `Assigned to ${namer.name(v.assignee, { you: false })}.` : 'Released: nobody is assigned.');
    },
  });
  const resolving = a.status === 'open';
  const change = form({
    submit: resolving ? 'Resolve' : 'Reopen',
    fields: [
      resolving ? { name: 'disposition', label: 'Was it real?', type: 'radio', required: true, options: dispositions } : null,
      { name: 'note', label: 'Note', type: 'textarea', rows: 3, maxlength: 2000,
        hint: resolving ? 'What was done, for whoever reads this later (optional).' : 'Why it is being reopened (optional).' },
    ].filter(Boolean),
    onSubmit: async (v) => {
      if (resolving && !v.disposition) throw new ApiError(400, 'validation_error', 'Invalid request: disposition is required: say whether the alert was real', ['disposition']);
      await patch(path, resolving ? { status: 'resolved', disposition: v.disposition, note: v.note } : { status: 'open', note: v.note });
      await redraw(resolving ? `Alert resolved as ${dispositionName[v.disposition].toLowerCase()}.` : 'Alert reopened.');
    },
  });
  return h('div', { class: 'work' },
    h('h3', {}, 'Work this alert'),
    status,
    ack || take ? h('div', { class: 'actions' }, ack, take) : null,
    assign,
    h('h3', {}, resolving ? 'Resolve this alert' : 'Reopen this alert'),
    change);
}

// history says what each change did, in words.
function history(rows, namer) {
  if (rows.length === 0) return h('p', { class: 'muted' }, 'No changes recorded.');
  const what = (c) => {
    if (c.action === 'acknowledge') return 'Acknowledged';
    if (c.action === 'assign') return c.assignee ? `Assigned to ${namer.name(c.assignee, { you: false })}` : 'Released (nobody assigned)';
    if (c.status === 'resolved') return c.disposition ? `Resolved as ${(dispositionName[c.disposition] || words(c.disposition)).toLowerCase()}` : 'Resolved';
    return c.status === 'open' ? 'Reopened' : Words(c.status);
  };
  return h('ul', { class: 'thread' }, rows.slice().reverse().map((c) => h('li', {},
    h('div', {}, h('strong', {}, what(c)), ' ', h('span', { class: 'small muted' }, 'by ', personNode(namer, c.by), ' · ', time(c.at))),
    c.note ? h('p', {}, c.note) : null)));
}
