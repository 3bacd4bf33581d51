// Agents: the six agents with their recent runs and a form to start one,
// and a run's page that follows it until it ends, then shows its output.

import { get, post, query } from '../api.js';
import { h, section, load, table, pager, form, time, badge, num, dl, dialog, errorBox, notice, loading, clip, words } from '../dom.js';
import { verticals } from '../vocab.js';
import { agentName } from '../people.js';

// The API gives no parameter schema, so each agent's form is written from
// docs/api.md (Agents → Parameters). Every agent also takes a prompt.
const opts = (list, any) => [['', any], ...list.map((v) => [v, words(v)])];
const paramFields = {
  'threat-researcher': [
    { name: 'target', label: 'Target', required: true, placeholder: 'example.com, 203.0.113.7, CVE-2021-44228…', hint: 'A domain, IP address, MD5/SHA-1/SHA-256 hash, CVE id or vendor name.' },
    { name: 'include_cve', label: 'Look up related CVEs', type: 'checkbox', value: true, option: true },
    { name: 'mitre_mapping', label: 'Map to MITRE ATT&CK', type: 'checkbox', value: true, option: true },
  ],
  'tech-support': [
    { name: 'ticket_id', label: 'Ticket', type: 'select', options: [['', 'None: describe a problem below']], tickets: true,
      hint: 'Triage one of your tickets, or describe a problem below.' },
    { name: 'subject', label: 'Subject', maxlength: 200 },
    { name: 'description', label: 'Description', type: 'textarea' },
  ],
  compliance: [
    { name: 'framework', label: 'Framework', type: 'select', options: [['', 'All frameworks'], ['soc2', 'SOC 2'], ['hipaa', 'HIPAA'], ['nist', 'NIST CSF'], ['cis', 'CIS Controls']] },
  ],
  'msp-hunter': [
    { name: 'vertical', label: 'Vertical', type: 'select', options: opts(verticals, 'Any vertical') },
    { name: 'region', label: 'Region', maxlength: 100 },
    { name: 'min_employees', label: 'Minimum employees', type: 'number', min: 0, int: true },
    { name: 'max_employees', label: 'Maximum employees', type: 'number', min: 0, int: true },
    { name: 'limit', label: 'Most leads to keep', type: 'number', min: 1, max: 10000, int: true, placeholder: '100' },
  ],
};
const prompt = { name: 'prompt', label: 'Instructions (optional)', type: 'textarea', rows: 3, maxlength: 4000 };
const fieldsOf = (slug) => [...(paramFields[slug] || []), prompt];

const active = (s) => s === 'queued' || s === 'running';
const runHref = (run) => `/agents/runs/${encodeURIComponent(run.agent_run_id)}?agent=${encodeURIComponent(run.agent)}`;

export async function render(ctx) {
  return ctx.view === 'run' ? runPage(ctx) : indexPage(ctx);
}

// ---- The list of agents ----

async function indexPage(ctx) {
  const list = h('div');
  load(list, async () => {
    const agents = (await get('/agents')).data || [];
    return h('div', { class: 'grid wide' }, agents.map((a) => agentPanel(ctx, a)));
  });
  return h('div', {}, h('h1', {}, 'Agents'),
    h('p', { class: 'muted' }, 'Each agent analyses your organization\'s own data. Runs are queued and take a few seconds.'), list);
}

function agentPanel(ctx, a) {
  const runs = h('div');
  const showRuns = (offset) => load(runs, async () => {
    const res = await get(`/agents/${encodeURIComponent(a.slug)}/executions` + query({ limit: 5, offset }));
    return [table([
      { label: 'Run', cell: (r) => [h('a', { href: runHref(r) }, time(r.queued_at)), h('br'), badge(r.status)] },
      { label: 'Summary', cell: (r) => h('span', { class: 'small' }, short(r.error || r.output_summary)) },
    ], res.data, 'No runs yet.', `Recent runs of ${a.name}`), pager(res.pagination, showRuns)];
  });
  showRuns(0);
  // Both roles may start runs (Write); the plan decides which agents.
  let action = null;
  if (!a.available) action = h('p', { class: 'muted small' }, `Needs the ${a.plan_tier} plan or higher.`);
  else if (ctx.can('member')) action = h('button', { type: 'button', onclick: () => openRun(ctx, a) }, `Run ${a.name}`);
  return section(a.name,
    h('p', {}, badge(a.status), ' ', a.queued || a.running ? h('span', { class: 'small' }, `${num(a.running)} running, ${num(a.queued)} queued`) : null),
    h('p', { class: 'small' }, a.description),
    h('div', { class: 'actions' }, action),
    h('h3', {}, 'Recent runs'), runs);
}

const short = (s) => clip(s, 120);

// openRun asks for the agent's parameters, starts the run and goes to it.
// A ticket is chosen by its subject from the latest ones.
async function openRun(ctx, a) {
  let fields = fieldsOf(a.slug);
  if (fields.some((f) => f.tickets)) {
    const recent = await get('/tickets?limit=50').then((r) => r.data, () => []);
    fields = fields.map((f) => (f.tickets ? { ...f, options: [...f.options, ...recent.map((t) => [t.id, `${t.subject} (${words(t.status)})`])] } : f));
  }
  dialog(`Run ${a.name}`, (close) => form({
    fields, submit: 'Start run', cancel: close,
    onSubmit: async (values) => {
      const res = await post(`/agents/${encodeURIComponent(a.slug)}/execute`, paramsFrom(fields, values));
      close();
      ctx.navigate(runHref(res.data));
    },
  }));
}

// paramsFrom leaves out empty fields so the agent's defaults apply.
function paramsFrom(fields, values) {
  const body = {};
  for (const f of fields) {
    const v = values[f.name];
    if (f.option) (body.options ||= {})[f.name] = v;
    else if (v === '' || v === null) continue;
    else body[f.name] = f.int && /^-?\d+$/.test(v) ? Number(v) : v;
  }
  return body;
}

// ---- One run ----

async function runPage(ctx) {
  const id = ctx.params.id;
  const title = h('h1', {}, 'Agent run');
  const warn = h('div');
  const body = h('div', {}, loading());
  const page = h('div', {}, title, warn, body);
  let base, timer = 0;
  // show draws the run and, while it may still change, polls it again;
  // leaving the page (the node gone from the document) ends the polling.
  const show = (run, message) => {
    clearTimeout(timer);
    title.replaceChildren(`${agentName(run.agent)} run `, badge(run.status));
    ctx.setTitle(`${agentName(run.agent)} run`);
    body.replaceChildren(...runView(ctx, run, base, show, message).filter(Boolean));
    if (active(run.status)) timer = setTimeout(poll, 1500);
  };
  const poll = async () => {
    if (!page.isConnected) return;
    try {
      const run = (await get(base)).data;
      warn.replaceChildren();
      if (page.isConnected) show(run);
    } catch (err) {
      // A passing failure (the network) shows and the polling goes on, slower.
      warn.replaceChildren(errorBox(err));
      if (page.isConnected && err.status !== 404) timer = setTimeout(poll, 5000);
    }
  };
  (async () => {
    try {
      const agent = ctx.query.get('agent') || await findAgent(id);
      base = `/agents/${encodeURIComponent(agent)}/executions/${encodeURIComponent(id)}`;
      show((await get(base)).data);
    } catch (err) {
      body.replaceChildren(errorBox(err));
    }
  })();
  return page;
}

// findAgent finds which agent a run belongs to when the link did not say.
async function findAgent(id) {
  for (const a of (await get('/agents')).data || []) {
    try {
      await get(`/agents/${encodeURIComponent(a.slug)}/executions/${encodeURIComponent(id)}`);
      history.replaceState(null, '', `${location.pathname}?agent=${encodeURIComponent(a.slug)}`);
      return a.slug;
    } catch { /* not this agent's */ }
  }
  throw new Error('No run of any agent has this id, or it is not one of the runs you may see.');
}


function runView(ctx, run, base, show, message) {
  const params = flat(run.params || {});
  const cancel = active(run.status) && ctx.can('member')
    ? h('button', { type: 'button', class: 'danger', onclick: async (ev) => {
      ev.target.disabled = true;
      try {
        show((await post(base + '/cancel', {})).data, 'The run was cancelled.');
      } catch (err) {
        ev.target.disabled = false;
        ev.target.after(errorBox(err));
      }
    } }, 'Cancel run') : null;
  return [
    message ? notice(message) : null,
    h('p', {}, h('a', { href: '/agents' }, '← All agents')),
    section('Run',
      dl([
        ['Agent', agentName(run.agent)],
        ['Status', badge(run.status)],
        ['Run id', h('span', { class: 'mono' }, run.agent_run_id)],
        ['Parameters', params.length ? h('span', { class: 'mono small' }, params.map(([k, v]) => `${k}: ${v}`).join(', ')) : 'none'],
        ['Queued', time(run.queued_at)],
        ['Started', time(run.started_at)],
        ['Finished', time(run.finished_at)],
        run.duration_ms != null ? ['Duration', `${num(run.duration_ms)} ms`] : null,
        run.recoveries ? ['Recoveries', num(run.recoveries)] : null,
      ]),
      active(run.status) ? h('p', { class: 'loading', role: 'status' }, run.status === 'queued' ? 'Waiting for a worker…' : 'Running…') : null,
      run.error ? (run.status === 'failed' ? errorBox(run.error) : h('p', { class: 'muted' }, run.error)) : null,
      h('div', { class: 'actions' }, cancel)),
    run.status === 'completed' ? section('Result',
      h('p', {}, run.output_summary),
      narrative(run.output?.narrative),
      outputView(run.output),
      h('details', {}, h('summary', {}, 'Raw output (JSON)'), h('pre', {}, JSON.stringify(run.output, null, 2)))) : null,
  ];
}

// flat lists the parameters that were set, options.x as x.
const flat = (o) => Object.entries(o).flatMap(([k, v]) => (isObj(v) ? flat(v) : v === '' || v === null ? [] : [[k, v]]));

function narrative(n) {
  if (!n) return null;
  const who = n.source === 'llm' ? `Summary phrased by the language model${n.model ? ' ' + n.model : ''}.` : 'Summary written from the facts below.';
  return h('p', { class: 'muted small' }, who, n.fallback_reason ? ` (Model not used: ${n.fallback_reason})` : '');
}

// ---- Output, drawn from its shape: values as pairs, lists as lists,
// lists of records as tables, nested records under headings. ----

const acronyms = { id: 'ID', cves: 'CVEs', cve: 'CVE', dns: 'DNS', mitre: 'MITRE', ip: 'IP', url: 'URL', llm: 'LLM' };
const label = (k) => { const s = String(k).split('_').map((w) => acronyms[w] || w).join(' '); return s.charAt(0).toUpperCase() + s.slice(1); };
// What a reader wants first, when an output has it.
const first = ['risk', 'recommendations', 'next_steps', 'triage', 'checklist', 'summary', 'worst_gaps', 'leads_created'];
const rank = ([k]) => (first.includes(k) ? first.indexOf(k) : first.length);
const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const scalar = (v) => v === null || typeof v !== 'object';
const skip = new Set(['narrative', 'facts_summary']);
const links = [[/^alr_/, '/alerts/'], [/^tkt_/, '/tickets/'], [/^lead_/, '/leads/'], [/^rpt_/, '/compliance/reports/']];

function value(k, v) {
  if (v === null || v === undefined || v === '') return h('span', { class: 'muted' }, '—');
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'number') return num(v);
  if (Array.isArray(v)) return v.every(scalar) ? v.join(', ') || '—' : h('span', { class: 'mono small' }, JSON.stringify(v));
  if (typeof v === 'object') return h('span', { class: 'mono small' }, JSON.stringify(v));
  if (/^(severity|status|priority|suggested_priority|last_status|rating)$/.test(k)) return badge(v);
  if (/^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(v)) return time(v);
  for (const [re, path] of links) if (re.test(v)) return h('a', { href: path + encodeURIComponent(v), class: 'mono' }, v);
  if (/^https:\/\//.test(v)) return h('a', { href: v, target: '_blank', rel: 'noopener noreferrer' }, v);
  return v;
}

function outputView(out) {
  if (!isObj(out)) return null;
  return block(out, 3);
}

// block shows an object: its plain values as pairs, then each list or
// record under a heading.
function block(obj, level) {
  const entries = Object.entries(obj).filter(([k]) => !skip.has(k));
  const pairs = entries.filter(([, v]) => scalar(v) || (Array.isArray(v) && v.every(scalar) && v.join(', ').length < 80));
  const rest = entries.filter((e) => !pairs.includes(e)).sort((a, b) => rank(a) - rank(b));
  return [
    pairs.length ? dl(pairs.map(([k, v]) => [label(k), value(k, v)])) : null,
    rest.map(([k, v]) => [h(`h${Math.min(level, 6)}`, {}, label(k)), nested(k, v, level + 1)]),
  ];
}

function nested(k, v, level) {
  if (Array.isArray(v)) {
    if (v.every(scalar)) return h(/step/.test(k) ? 'ol' : 'ul', {}, v.map((x) => h('li', {}, value(k, x))));
    if (v.every(isObj)) return records(v, k);
    return h('pre', {}, JSON.stringify(v, null, 2));
  }
  // A record of records with plain values (a summary per framework) reads best as a table.
  const vals = Object.values(v);
  if (vals.length && vals.every((x) => isObj(x) && Object.values(x).every(scalar))) {
    return records(Object.entries(v).map(([name, x]) => ({ name, ...x })), k);
  }
  if (level > 6) return h('pre', {}, JSON.stringify(v, null, 2));
  return block(v, level);
}

// An id with no page of its own (an event's) only widens the table.
const bareId = (v) => typeof v === 'string' && /^[a-z]+_[0-9a-z]{20,}$/.test(v) && !links.some(([re]) => re.test(v));

function records(rows, k) {
  // A record's machine name is left out where it has a title for people.
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((key) => !rows.every((r) => bareId(r[key])) &&
    !(key === 'id' && rows.every((r) => r.title)));
  return table(keys.map((key) => ({ label: label(key), class: rows.every((r) => typeof r[key] === 'number' || r[key] == null) ? 'num' : null,
    cell: (r) => value(key, r[key]) })), rows, 'None.', label(k));
}
