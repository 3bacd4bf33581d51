// Outreach: the lead pipeline as a board (one column per status), the
// prospects the msp-hunter agent scores, their CSV import, and one lead
// with its score explained, its contact, history and status changes.

import { get, api, patch, query, ApiError } from '../api.js';
import { people, personNode, agentName } from '../people.js';
import { h, section, load, table, form, time, badge, num, notice, dl, download, errorBox, notFound, Words, clip } from '../dom.js';
import { pagedList, withParams, timeOf, text } from '../list.js';
import { verticals } from '../vocab.js';
import { gauge } from '../chart.js';

export async function render(ctx) {
  try {
    return ctx.view === 'detail' ? await detail(ctx).catch((err) => notFound(err, 'Lead', 'There is no such lead in your organization.', '/leads', 'Back to the leads')) : await index(ctx);
  } catch (err) {
    // Outreach is a paid feature: say so once instead of an error per panel.
    if (err.code !== 'plan_upgrade_required') throw err;
    return h('div', { class: 'page' }, h('h1', {}, 'Leads'), errorBox(err),
      h('p', {}, ctx.can('admin') ? 'Plans are changed by the operator of this appliance (garrison org set-plan); outreach data is kept across plan changes.' : 'Ask an administrator of your organization about the plan.'));
  }
}

// The pipeline, in order.
const statuses = ['new', 'contacted', 'responded', 'qualified', 'won', 'lost'];
const label = Words;
const PER_COLUMN = 50;
const csvTemplate = 'company,domain,vertical,region,employees,contact_name,contact_email,contact_phone,notes\n' +
  'Example Dental,exampledental.com,dental,Ohio,18,Dr. Jane Doe,jane@exampledental.com,+1 614 555 0100,"No IT staff, cyber insurance renewal due"\n';

// ---- Board and prospects ----

async function index(ctx) {
  await get('/outreach/leads?limit=0'); // fails at once when the plan lacks outreach
  const q = ctx.query;
  const filters = { q: q.get('q') || '', vertical: q.get('vertical') || '', min_score: q.get('min_score') || '', status: q.get('status') || '' };
  const asList = q.get('view') === 'list';
  const board = h('div'), result = h('div');

  // One request per column, so each shows its best leads and its true total.
  const showBoard = () => load(board, async () => {
    const cols = await Promise.all(statuses.map((s) => get('/outreach/leads' + query({ ...filters, status: s, sort: 'score', limit: PER_COLUMN }))));
    const el = h('div', { class: 'board', role: 'region', 'aria-label': 'Lead pipeline', tabindex: '0' }, statuses.map((s, i) => {
      const { data, pagination } = cols[i];
      return h('section', { class: 'column', 'aria-label': label(s) },
        h('h2', {}, label(s), h('span', { class: 'muted' }, num(pagination.total))),
        data.length ? data.map(card) : h('p', { class: 'muted small' }, 'No lead.'),
        pagination.total > data.length ? h('p', { class: 'muted small' }, `The ${data.length} best of ${num(pagination.total)}: `,
          h('a', { href: '/leads' + query({ ...filters, status: s, view: 'list' }) }, 'see them all as a list'), '.') : null);
    }));
    el.style.setProperty('grid-auto-columns', 'minmax(180px, 1fr)'); // all six columns fit a wide screen
    return el;
  });

  // The list: the API sorts leads by score and by last update (each
  // highest or newest first); other columns sort the page shown.
  const leadList = pagedList({
    caption: 'Leads', limit: 25, what: 'leads', natural: 'highest score first', sort: { key: 'score', order: 'desc' },
    emptyMessage: 'No lead matches these filters.',
    fetch: ({ offset, limit, api }) => get('/outreach/leads' + query({ ...filters, limit, offset, ...api })),
    columns: [
      { key: 'company', label: 'Company', first: 'asc', sort: (l) => text(l.company), cell: (l) => [h('a', { href: '/leads/' + encodeURIComponent(l.id) }, l.company), h('div', { class: 'small muted mono' }, l.domain)] },
      { key: 'status', label: 'Status', first: 'asc', sort: (l) => statuses.indexOf(l.status), cell: (l) => badge(l.status), ascWords: 'earliest stage first', descWords: 'latest stage first' },
      { key: 'score', label: 'Score', class: 'num', sort: (l) => l.score, server: (order) => (order === 'desc' ? {} : null), cell: (l) => num(l.score), descWords: 'highest first', ascWords: 'lowest first' },
      { key: 'vertical', label: 'Vertical', first: 'asc', sort: (l) => l.vertical || null, cell: (l) => (l.vertical ? label(l.vertical) : '—') },
      { key: 'region', label: 'Region', first: 'asc', sort: (l) => text(l.region || null), cell: (l) => l.region || '—' },
      { key: 'employees', label: 'Employees', class: 'num', sort: (l) => l.employees ?? null, cell: (l) => num(l.employees), descWords: 'largest first', ascWords: 'smallest first' },
      { key: 'updated', label: 'Updated', sort: (l) => timeOf(l.updated_at), server: (order) => (order === 'desc' ? { sort: 'updated' } : null), cell: (l) => time(l.updated_at),
        descWords: 'newest first', ascWords: 'oldest first' },
    ],
  });

  // Prospects are listed by company; the other columns sort the page shown.
  const prospects = pagedList({
    caption: 'Prospects', limit: 25, what: 'prospects', natural: 'by company', sort: { key: 'company', order: 'asc' },
    emptyMessage: 'No prospect yet. Import a CSV file of the businesses you would like to serve.',
    fetch: ({ offset, limit }) => get('/outreach/prospects' + query({ limit, offset: offset || '' })),
    prefix: 'p',
    columns: [
      { key: 'company', label: 'Company', first: 'asc', sort: (p) => text(p.company), server: (order) => (order === 'asc' ? {} : null), cell: (p) => p.company, ascWords: 'A to Z', descWords: 'Z to A' },
      { key: 'domain', label: 'Domain', first: 'asc', sort: (p) => p.domain, cell: (p) => h('span', { class: 'mono' }, p.domain) },
      { key: 'vertical', label: 'Vertical', first: 'asc', sort: (p) => p.vertical || null, cell: (p) => (p.vertical ? label(p.vertical) : '—') },
      { key: 'region', label: 'Region', first: 'asc', sort: (p) => text(p.region || null), cell: (p) => p.region || '—' },
      { key: 'employees', label: 'Employees', class: 'num', sort: (p) => p.employees ?? null, cell: (p) => num(p.employees), descWords: 'largest first', ascWords: 'smallest first' },
      { key: 'contact', label: 'Contact', first: 'asc', sort: (p) => text(p.contact_name || null), cell: (p) => [p.contact_name || '—', p.contact_email ? h('div', { class: 'small' }, p.contact_email) : null] },
      { key: 'notes', label: 'Notes', cell: (p) => h('span', { class: 'small' }, clip(p.notes, 100)) },
      { key: 'updated', label: 'Updated', sort: (p) => timeOf(p.updated_at), cell: (p) => time(p.updated_at), descWords: 'newest first', ascWords: 'oldest first' },
    ],
  });

  const filterForm = form({
    className: 'inline toolbar', submit: 'Apply filters',
    fields: [
      { name: 'q', label: 'Company or domain', type: 'text', value: filters.q, maxlength: 200 },
      { name: 'vertical', label: 'Vertical', type: 'select', value: filters.vertical, options: [['', 'Any'], ...verticals.map((v) => [v, label(v)])] },
      { name: 'min_score', label: 'Minimum score', type: 'number', min: 0, max: 100, value: filters.min_score, placeholder: '0–100' },
      asList ? { name: 'status', label: 'Status', type: 'select', value: filters.status, options: [['', 'Any'], ...statuses.map((v) => [v, label(v)])] } : null,
    ].filter(Boolean),
    onSubmit: async (v) => {
      await get('/outreach/leads' + query({ ...v, limit: 0 })); // a bad filter shows beside its field
      ctx.navigate(withParams({ ...v, page: '' }));
    },
  });

  const importForm = form({
    submit: 'Import',
    fields: [{ name: 'file', label: 'CSV file', type: 'file', required: true, accept: '.csv,text/csv',
      hint: 'A header row, then one business a row. Columns: company and domain (required), vertical, region, employees, contact_name, contact_email, contact_phone, notes; other columns are kept as attributes. Rows are matched by domain; the file is taken all or nothing.' }],
    onSubmit: async (v, el) => {
      if (!v.file) throw new ApiError(400, 'validation_error', 'file: choose a CSV file to import', ['file']);
      let res;
      try {
        res = await api('POST', '/outreach/prospects', undefined, { text: await v.file.text(), contentType: 'text/csv' });
      } catch (err) {
        // The API names rows of the file; flag the file input.
        if (err instanceof ApiError && err.fields.length) err.fields = ['file'];
        throw err;
      }
      const r = res.data;
      el.reset();
      result.replaceChildren(notice(`${v.file.name}: ${num(r.rows)} rows read; ${num(r.created)} new, ${num(r.merged)} merged into existing prospects, ${num(r.unchanged)} unchanged.`),
        r.created || r.merged ? h('p', { class: 'small' }, 'Run the msp-hunter agent on the ', h('a', { href: '/agents' }, 'Agents'), ' page to score them into leads.') : null);
      prospects.reload({ quiet: true });
    },
  });

  const views = h('nav', { class: 'tabs', 'aria-label': 'Show the leads as' },
    h('a', { href: withParams({ view: '', page: '', sort: '', order: '', status: '' }), 'aria-current': asList ? null : 'page' }, 'Pipeline board'),
    h('a', { href: withParams({ view: 'list', page: '' }), 'aria-current': asList ? 'page' : null }, 'List'));
  if (asList) leadList.reload();
  else showBoard();
  prospects.reload();
  return h('div', { class: 'page' },
    h('h1', {}, 'Leads'),
    h('p', { class: 'muted' }, 'Businesses the msp-hunter agent scored from your prospects, by where they are in your sales pipeline.'),
    views,
    filterForm,
    asList ? leadList.node : board,
    section('Import prospects from a CSV file', importForm,
      h('p', {}, h('button', { type: 'button', class: 'secondary small', onclick: () => download('prospects-template.csv', csvTemplate, 'text/csv') }, 'Download a template')),
      result),
    section('Prospects', prospects.node));
}

function card(l) {
  return h('article', { class: 'card' },
    h('a', { href: '/leads/' + l.id }, h('strong', {}, l.company)),
    h('div', { class: 'small' }, 'Score ', h('strong', {}, num(l.score)), l.vertical ? ' · ' + label(l.vertical) : '', l.region ? ' · ' + l.region : ''),
    h('div', { class: 'small muted' }, l.contact.name || l.domain));
}

// ---- One lead ----

async function detail(ctx) {
  const id = encodeURIComponent(ctx.params.id);
  const [lead, names] = await Promise.all([get('/outreach/leads/' + id), people(ctx)]);
  const page = h('div', { class: 'page' });
  const fill = (l, message) => {
    ctx.setTitle(l.company);
    page.replaceChildren(...leadView(l, names, ctx, message, async (values) => {
      const res = await patch(`/outreach/leads/${id}/status`, values);
      const fresh = (await get('/outreach/leads/' + id)).data; // the PATCH answer has no history
      fill(fresh, res.data.status === l.status ? 'The lead already had that status; nothing changed.' : `Moved to ${label(res.data.status)}.`);
    }).filter(Boolean));
  };
  fill(lead.data);
  return page;
}

function leadView(l, names, ctx, message, move) {
  const reasons = Array.isArray(l.score_reasons) ? l.score_reasons : [];
  const sum = reasons.reduce((t, r) => t + (r.points || 0), 0);
  const c = l.contact || {};
  return [
    h('p', { class: 'small' }, h('a', { href: '/leads' }, '← Leads')),
    h('h1', {}, l.company, badge(l.status)),
    message ? notice(message) : null,
    h('div', { class: 'grid wide' },
      section('Score',
        h('div', { class: 'score-ring' }, gauge(l.score, 'Lead score'), h('p', {}, l.intelligence_summary)),
        h('p', { class: 'muted small' }, l.summary_source === 'facts' ? 'Summary written from the scored facts.' : `Summary phrased by ${l.summary_source.replace(/^llm:/, '')} from the scored facts.`,
          ' Scored by ', h('a', { href: `/agents/runs/${encodeURIComponent(l.agent_run_id)}?agent=msp-hunter` }, 'an msp-hunter run'), '.')),
      section('Contact',
        dl([
          ['Name', c.name || '—'],
          ['E-mail', c.email ? h('a', { href: 'mailto:' + c.email }, c.email) : '—'],
          ['Phone', c.phone ? h('a', { href: 'tel:' + c.phone.replace(/[^0-9+]/g, '') }, c.phone) : '—'],
          ['Website', h('a', { href: 'https://' + l.domain, target: '_blank', rel: 'noopener noreferrer' }, l.domain)],
          ['Vertical', l.vertical ? label(l.vertical) : '—'],
          ['Region', l.region || '—'],
          ['Employees', num(l.employees)],
          ['Lead since', time(l.created_at)],
        ]))),
    section('Why this score',
      table([
        { label: 'Factor', cell: (r) => label(r.factor).replace(/\bit\b/, 'IT') },
        { label: 'Points', class: 'num', cell: (r) => num(r.points) },
        { label: 'Because', cell: (r) => r.detail },
      ], reasons, 'No reasons recorded.', 'Score reasons'),
      sum > l.score ? h('p', { class: 'muted small' }, `The points add up to ${sum}; the score is capped at 100.`) : null),
    section('Move to another status',
        form({
          submit: 'Change status',
          fields: [
            { name: 'status', label: 'Status', type: 'select', value: l.status, required: true, options: statuses.map((s) => [s, label(s)]) },
            { name: 'note', label: 'Note', type: 'textarea', rows: 3, maxlength: 2000, hint: 'Optional: what happened, kept in the history.' },
          ],
          onSubmit: (v) => move(v.note.trim() ? { status: v.status, note: v.note.trim() } : { status: v.status }),
        })),
    section('History',
        table([
          { label: 'When', cell: (x) => time(x.at) },
          { label: 'Change', cell: (x) => (x.kind === 'score' ? (x.from ? `Score ${x.from} → ${x.to}` : `Scored ${x.to}`) : x.from ? [badge(x.from), ' → ', badge(x.to)] : ['Created as ', badge(x.to)]) },
          { label: 'Note', cell: (x) => x.note || '—' },
          { label: 'By', cell: (x) => actor(x.actor, names) },
        ], (l.history || []).slice().reverse(), 'No history yet.', 'Lead history')),
  ];
}

// actor names who made a change: a member, an API key (people.js) or an
// agent run.
function actor(a, names) {
  if (!a) return '—';
  const run = /run_[0-9a-z]+/.exec(a);
  if (run) {
    const agent = a.replace(/^agent:/, '').replace(/ \(run_.*$/, '');
    return h('a', { href: `/agents/runs/${run[0]}?agent=${encodeURIComponent(agent)}` }, agentName(agent) + ' agent');
  }
  return personNode(names, a);
}
