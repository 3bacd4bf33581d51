// Support tickets: the list with its status filter, a new ticket, and a
// ticket's page with its automatic triage, thread, reply and changes.

import { get, post, patch, query } from '../api.js';
import { people, personNode } from '../people.js';
import { h, section, table, form, time, badge, dl, dialog, errorBox, notice, loading, empty, words, Words } from '../dom.js';
import { pagedList, withParams, timeOf, text as lower } from '../list.js';

const statuses = ['open', 'in_progress', 'escalated', 'resolved', 'closed'];
const priorities = ['low', 'medium', 'high'];
// The moves the API allows from each status (ticket/ticket.go).
const moves = { open: ['in_progress', 'escalated', 'resolved', 'closed'], in_progress: ['open', 'escalated', 'resolved', 'closed'],
  escalated: ['open', 'in_progress', 'resolved', 'closed'], resolved: ['open', 'closed'], closed: ['open'] };
// Members may only resolve or close a ticket, or reopen a resolved or closed one.
const memberMoves = (s) => (s === 'resolved' ? ['open', 'closed'] : s === 'closed' ? ['open'] : ['resolved', 'closed']);

export async function render(ctx) {
  return ctx.view === 'detail' ? detailPage(ctx) : listPage(ctx);
}

const agents = { 'tech-support': 'Tech Support agent' };

// who names a person, key or agent (people.js), "nobody" for no one.
function who(id, namer) {
  if (!id) return h('span', { class: 'muted' }, 'nobody');
  if (agents[id]) return agents[id];
  return personNode(namer, id);
}

// ---- The list ----

const priorityRank = { low: 1, medium: 2, high: 3 };
const statusRank = Object.fromEntries(statuses.map((x, i) => [x, i]));

function listPage(ctx) {
  const status = ctx.query.get('status') || '';
  const filter = h('select', { id: 'ticket-status', onchange: () => ctx.navigate(withParams({ status: filter.value, page: '' })) },
    h('option', { value: '' }, 'All'), statuses.map((x) => h('option', { value: x }, Words(x))));
  filter.value = status;
  const namerP = people(ctx);
  let namer = null;
  // The API lists tickets newest first and sorts them no other way: the
  // columns sort the page shown.
  const list = pagedList({
    caption: 'Tickets', limit: 25, what: 'tickets', natural: 'newest first', sort: { key: 'created', order: 'desc' },
    emptyMessage: status ? `No ${words(status)} tickets.` : 'No tickets yet. Submit one and the Tech Support agent triages it.',
    fetch: async ({ offset, limit }) => {
      namer = await namerP;
      return get('/tickets' + query({ status, limit, offset }));
    },
    columns: [
      { key: 'subject', label: 'Subject', first: 'asc', sort: (t) => lower(t.subject), cell: (t) => [h('a', { href: '/tickets/' + encodeURIComponent(t.id) }, t.subject),
        h('div', { class: 'muted small' }, t.ai_triage ? t.ai_triage.title : `Triage ${t.triage_status}`)] },
      { key: 'status', label: 'Status', first: 'asc', sort: (t) => statusRank[t.status], cell: (t) => badge(t.status) },
      { key: 'priority', label: 'Priority', sort: (t) => priorityRank[t.priority], cell: (t) => badge(t.priority), descWords: 'highest first', ascWords: 'lowest first' },
      { key: 'assignee', label: 'Assignee', first: 'asc', sort: (t) => lower(t.assignee && namer.name(t.assignee, { you: false })), cell: (t) => who(t.assignee, namer) },
      { key: 'updated', label: 'Updated', sort: (t) => timeOf(t.updated_at), cell: (t) => time(t.updated_at), descWords: 'newest first', ascWords: 'oldest first' },
      { key: 'created', label: 'Submitted', sort: (t) => timeOf(t.created_at), server: (order) => (order === 'desc' ? {} : null), cell: (t) => time(t.created_at),
        descWords: 'newest first', ascWords: 'oldest first' },
    ],
  });
  list.reload();
  return h('div', {},
    h('h1', {}, 'Tickets'),
    h('div', { class: 'toolbar' }, h('div', { class: 'field' }, h('label', { for: 'ticket-status' }, 'Status'), filter),
      ctx.can('member') ? h('button', { type: 'button', onclick: () => newTicket(ctx) }, 'New ticket') : null),
    list.node);
}

function newTicket(ctx) {
  dialog('New ticket', (close) => form({
    submit: 'Submit ticket', cancel: close,
    fields: [
      { name: 'subject', label: 'Subject', required: true, maxlength: 200, hint: 'One line.' },
      { name: 'description', label: 'Description', type: 'textarea', required: true, rows: 6, hint: 'What happened, since when, who is affected.' },
      { name: 'priority', label: 'Priority', type: 'select', value: 'medium', options: priorities.map((p) => [p, Words(p)]) },
    ],
    onSubmit: async (v) => {
      const t = (await post('/tickets/submit', v)).data;
      close();
      ctx.navigate('/tickets/' + encodeURIComponent(t.id));
    },
  }));
}

// ---- One ticket ----

async function detailPage(ctx) {
  const id = ctx.params.id;
  const path = '/tickets/' + encodeURIComponent(id);
  const page = h('div', {}, h('h1', {}, 'Ticket'), loading());
  const [res, namer] = await Promise.all([get(path), people(ctx)]).catch((err) => { page.replaceChildren(h('h1', {}, 'Ticket'), errorBox(err), h('p', {}, h('a', { href: '/tickets' }, '← All tickets'))); return []; });
  if (!res) return page;

  // fill redraws the page from a ticket detail (after a change, too).
  const fill = (t, message) => {
    ctx.setTitle(t.subject);
    // Keep what was being typed when the page redraws (the triage arrived).
    const drafts = [...page.querySelectorAll('textarea')].map((x) => [x.name, x.value]);
    page.replaceChildren(...[
      h('h1', {}, t.subject, ' ', badge(t.status), ' ', badge(t.priority)),
      h('p', {}, h('a', { href: '/tickets' }, '← All tickets')),
      h('div', { class: 'grid wide' },
        section('Ticket',
          dl([
            ['Status', badge(t.status)],
            ['Priority', badge(t.priority)],
            ['Assignee', who(t.assignee, namer)],
            ['Submitted by', who(t.created_by, namer)],
            ['Created', time(t.created_at)],
            ['Updated', time(t.updated_at)],
            t.resolved_at ? ['Resolved', time(t.resolved_at)] : null,
            t.alert_id ? ['Alert', h('a', { href: '/alerts/' + encodeURIComponent(t.alert_id) }, 'Opened from this alert')] : null,
            ['ID', h('span', { class: 'mono' }, t.id)],
          ]),
          h('h3', {}, 'Description'), text(t.description)),
        triagePanel(t, path, page, fill)),
      conversation(ctx, t, path, namer),
      changePanel(ctx, t, path, namer, fill, message),
      historyPanel(t, namer)].filter(Boolean));
    for (const [name, value] of drafts) {
      const x = page.querySelector(`textarea[name="${name}"]`);
      if (x && !(message && name === 'note')) x.value = value; // a saved note is in the history now
    }
  };
  fill(res.data);
  return page;
}

// text keeps the line breaks of what people wrote.
const text = (s) => h('p', {}, String(s || '').split('\n').flatMap((line, i) => (i ? [h('br'), line] : [line])));

function triagePanel(t, path, page, fill) {
  const run = t.triage_run_id ? h('a', { href: `/agents/runs/${encodeURIComponent(t.triage_run_id)}?agent=tech-support` }, 'See the triage run') : null;
  if (t.triage_status === 'pending') {
    // The triage is written a moment after submitting: look again until it
    // is, one look at a time however often the page is filled meanwhile.
    if (!page.triagePoll) {
      page.triagePoll = setTimeout(async () => {
        page.triagePoll = null;
        if (!page.isConnected) return;
        try { fill((await get(path)).data); } catch { /* the page shows the last state */ }
      }, 2000);
    }
    return section('Automatic triage', h('p', { class: 'loading', role: 'status' }, 'The Tech Support agent is triaging this ticket…'), run);
  }
  if (t.triage_status === 'failed' || !t.ai_triage) {
    return section('Automatic triage', errorBox('Automatic triage did not finish; the ticket waits for a technician.'), run);
  }
  const a = t.ai_triage;
  return section('Automatic triage',
    dl([
      ['Category', [a.title, ' ', h('span', { class: 'muted small mono' }, a.category)]],
      ['Confidence', a.confidence != null ? Math.round(a.confidence * 100) + '%' : '—'],
      ['Suggested priority', badge(a.suggested_priority)],
      a.evidence?.length ? ['Evidence', a.evidence.join(', ')] : null,
      ['Triaged', time(a.triaged_at)],
    ]),
    t.ai_resolution_steps?.length ? [h('h3', {}, 'Suggested resolution'), h('ol', {}, t.ai_resolution_steps.map((s) => h('li', {}, s)))] : null,
    a.reasons?.length ? h('details', {}, h('summary', {}, 'Why'), h('ul', {}, a.reasons.map((r) => h('li', {}, r)))) : null,
    h('p', { class: 'small' }, run));
}

// The conversation: replies by anyone but the submitter (the agent,
// technicians) are marked as staff.
function conversation(ctx, t, path, namer) {
  const list = h('ul', { class: 'thread' }, t.thread.map((m) => message(m, t, namer)));
  const none = t.thread.length ? null : empty('No messages yet.');
  const reply = ctx.can('member') ? form({
    submit: 'Send reply',
    fields: [{ name: 'body', label: 'Reply', type: 'textarea', required: true, rows: 4 }],
    onSubmit: async (v) => {
      const m = (await post(path + '/messages', v)).data;
      if (none) none.remove();
      list.append(message(m, t, namer));
      reply.reset();
    },
  }) : null;
  return section('Conversation', none, list, reply);
}

function message(m, t, namer) {
  const author = m.author_kind === 'agent' ? agents[m.author] || `${words(m.author)} agent` : who(m.author, namer);
  return h('li', { class: m.author === t.created_by ? null : 'staff' },
    h('p', { class: 'small' }, h('strong', {}, author), ' · ', time(m.at)), text(m.body));
}

// changePanel offers only what the caller's role may change: admins
// status, priority and assignee; members resolving, closing, reopening.
function changePanel(ctx, t, path, namer, fill, message) {
  const admin = ctx.can('admin');
  const next = admin ? moves[t.status] || [] : memberMoves(t.status);
  if (!ctx.can('member')) return null;
  const fields = [
    { name: 'status', label: 'Status', type: 'select', value: '', options: [['', `Keep ${words(t.status)}`], ...next.map((s) => [s, Words(s)])] },
  ];
  if (admin) {
    fields.push({ name: 'priority', label: 'Priority', type: 'select', value: t.priority, options: priorities.map((p) => [p, Words(p)]) });
    fields.push({ name: 'assignee', label: 'Assignee', type: 'select', value: t.assignee || '',
      options: [['', 'Nobody'], ...namer.members.map((m) => [m.id, `${m.name} (${m.role})`])] });
  }
  fields.push({ name: 'note', label: 'Note (optional)', type: 'textarea', rows: 2, maxlength: 2000 });
  return section(admin ? 'Change' : 'Resolve, close or reopen', message ? notice(message) : null, form({
    fields, submit: 'Save changes', className: 'inline',
    onSubmit: async (v) => {
      // Send only what changed: each change is a line of the history.
      const body = {};
      if (v.status) body.status = v.status;
      if (admin && v.priority !== t.priority) body.priority = v.priority;
      if (admin && v.assignee !== (t.assignee || '')) body.assignee = v.assignee || null;
      if (!Object.keys(body).length) throw new Error('Nothing to change: pick a new status' + (admin ? ', priority or assignee.' : '.'));
      if (v.note) body.note = v.note;
      fill((await patch(path, body)).data, 'Saved.');
    },
  }));
}

function historyPanel(t, namer) {
  const esc = t.escalation_log || [];
  return section('History',
    table([
      { label: 'When', cell: (c) => time(c.at) },
      { label: 'Change', cell: (c) => {
        const v = (x) => (c.field === 'assignee' ? who(x, namer) : x ? words(x) : '—');
        return [h('strong', {}, c.field), ': ', v(c.from), ' → ', v(c.to)];
      } },
      { label: 'By', cell: (c) => who(c.by, namer) },
      { label: 'Note', cell: (c) => c.note || '—' },
    ], t.status_history, 'No changes yet.', 'Status history'),
    esc.length ? [h('h3', {}, 'Escalations'), h('ul', {}, esc.map((e) => h('li', {}, time(e.at), ' — ', e.reason,
      e.confidence != null ? ` (confidence ${Math.round(e.confidence * 100)}%)` : '')))] : null);
}
