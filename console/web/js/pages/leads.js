// Outreach: the lead pipeline as a board (one column per status), the
// prospects the msp-hunter agent scores, their CSV import, and one lead
// with its score explained, its contact, history and status changes.

import { get, api, patch, query, ApiError, members } from '../api.js';
import { h, section, load, table, pager, form, time, badge, num, notice, dl, download, errorBox, notFound, Words, clip } from '../dom.js';
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
  const filters = { q: ctx.query.get('q') || '', vertical: ctx.query.get('vertical') || '', min_score: ctx.query.get('min_score') || '' };
  const board = h('div'), prospects = h('div'), result = h('div');
  let offset = 0;

  // One request per column, so each shows its best leads and its true total.
  const showBoard = () => load(board, async () => {
    const cols = await Promise.all(statuses.map((s) => get('/outreach/leads' + query({ ...filters, status: s, sort: 'score', limit: PER_COLUMN }))));
    const el = h('div', { class: 'board', role: 'region', 'aria-label': 'Lead pipeline', tabindex: '0' }, statuses.map((s, i) => {
      const { data, pagination } = cols[i];
      return h('section', { class: 'column', 'aria-label': label(s) },
        h('h2', {}, label(s), h('span', { class: 'muted' }, num(pagination.total))),
        data.length ? data.map(card) : h('p', { class: 'muted small' }, 'No lead.'),
        pagination.total > data.length ? h('p', { class: 'muted small' }, `The ${data.length} best of ${num(pagination.total)}; narrow the filters to see others.`) : null);
    }));
    el.style.setProperty('grid-auto-columns', 'minmax(180px, 1fr)'); // all six columns fit a wide screen
    return el;
  });

  const showProspects = () => load(prospects, async () => {
    const res = await get('/outreach/prospects' + query({ limit: 25, offset }));
    return [
      table([
        { label: 'Company', cell: (p) => p.company },
        { label: 'Domain', cell: (p) => h('span', { class: 'mono' }, p.domain) },
        { label: 'Vertical', cell: (p) => (p.vertical ? label(p.vertical) : '—') },
        { label: 'Region', cell: (p) => p.region || '—' },
        { label: 'Employees', class: 'num', cell: (p) => num(p.employees) },
        { label: 'Contact', cell: (p) => [p.contact_name || '—', p.contact_email ? h('div', { class: 'small' }, p.contact_email) : null] },
        { label: 'Notes', cell: (p) => h('span', { class: 'small' }, clip(p.notes, 100)) },
        { label: 'Updated', cell: (p) => time(p.updated_at) },
      ], res.data, 'No prospect yet. Import a CSV file of the businesses you would like to serve.', 'Prospects'),
      pager(res.pagination, (o) => { offset = o; showProspects(); }),
    ];
  });

  const filterForm = form({
    className: 'inline toolbar', submit: 'Apply filters',
    fields: [
      { name: 'q', label: 'Company or domain', type: 'text', value: filters.q, maxlength: 200 },
      { name: 'vertical', label: 'Vertical', type: 'select', value: filters.vertical, options: [['', 'Any'], ...verticals.map((v) => [v, label(v)])] },
      { name: 'min_score', label: 'Minimum score', type: 'number', min: 0, max: 100, value: filters.min_score, placeholder: '0–100' },
    ],
    onSubmit: async (v) => {
      await get('/outreach/leads' + query({ ...v, limit: 0 })); // a bad filter shows beside its field
      Object.assign(filters, v);
      history.replaceState(null, '', '/leads' + query(filters));
      showBoard();
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
      offset = 0;
      showProspects();
    },
  });

  showBoard();
  showProspects();
  return h('div', { class: 'page' },
    h('h1', {}, 'Leads'),
    h('p', { class: 'muted' }, 'Businesses the msp-hunter agent scored from your prospects, by where they are in your sales pipeline.'),
    filterForm,
    board,
    section('Import prospects from a CSV file', importForm,
      h('p', {}, h('button', { type: 'button', class: 'secondary small', onclick: () => download('prospects-template.csv', csvTemplate, 'text/csv') }, 'Download a template')),
      result),
    section('Prospects', prospects));
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
  const [lead, people] = await Promise.all([get('/outreach/leads/' + id), members()]);
  const names = Object.fromEntries([...people].map(([uid, m]) => [uid, m.name || m.email]));
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
          { label: 'By', cell: (x) => actor(x.actor, names, ctx) },
        ], (l.history || []).slice().reverse(), 'No history yet.', 'Lead history')),
  ];
}

// actor names who made a change: a member, an API key or an agent run.
function actor(a, names, ctx) {
  if (!a) return '—';
  if (a === ctx.me.id) return 'You';
  if (names[a]) return names[a];
  const run = /run_[0-9a-z]+/.exec(a);
  if (run) {
    const agent = a.replace(/^agent:/, '').replace(/ \(run_.*$/, '');
    return h('a', { href: `/agents/runs/${run[0]}?agent=${encodeURIComponent(agent)}` }, agent + ' agent');
  }
  if (a.startsWith('key_')) return 'API key ' + a;
  return h('span', { class: 'mono small' }, a);
}
