// Compliance: where the organization stands on each framework, its open
// gaps (remediate, attest), audits and their reports, policy templates.

import { get, post, patch, api, query } from '../api.js';
import { people, personNode } from '../people.js';
import { h, section, load, table, time, badge, num, dl, notice, empty, errorBox, pager, form, dialog, download, words } from '../dom.js';
import { hbars, hbarsHeight, fit } from '../chart.js';

export async function render(ctx) {
  return ctx.view === 'report' ? report(ctx) : index(ctx);
}

// Short names keep the chart's labels inside its margin.
const short = (f) => (f.name.length > 20 ? f.name.split(' ')[0] : f.name);
const pct = (n) => (typeof n === 'number' ? `${n}%` : n);
const formula = 'Completion: passing ÷ (passing + failing) controls. Manual and not-applicable controls are left out.';
// The bars are drawn at their card's width (chart.js fit).
const bars = (title, rows) => fit((width) => hbars({ title, rows, width }), hbarsHeight(rows));
const fwName = (names, id) => names[id] || id;
const nameMap = (list) => Object.fromEntries(list.map((f) => [f.id, short(f)]));

// A control is attested when no check evidences it: the API refuses the rest.
const attestable = (c) => c.basis !== 'checks';

function index(ctx) {
  const overview = get('/compliance').then((r) => r.data.frameworks);
  const names = overview.then(nameMap);
  const chart = h('div'), run = h('div'), fws = h('div'), gaps = h('div'), audits = h('div'), templates = h('div');
  const page = h('div', {}, h('h1', {}, 'Compliance'),
    h('div', { class: 'grid wide' }, section('Completion by framework', chart), section('Run an audit', run)),
    section('Frameworks', fws), section('Open gaps', gaps), section('Past audits', audits), section('Policy templates', templates));

  load(chart, async () => {
    const list = (await overview).filter((f) => f.last_report_id);
    if (!list.length) return empty('No audit yet: completion shows after the first one.');
    return [bars('Completion per framework', list.map((f) => ({ label: short(f), value: f.completion_percentage }))),
      h('p', { class: 'muted small' }, formula)];
  });
  load(run, async () => auditForm(ctx, await overview));
  load(fws, async () => frameworksTable(await overview));
  load(gaps, async () => gapsPanel(ctx, await overview));
  const showAudits = (offset) => load(audits, async () => {
    const [res, n] = await Promise.all([get('/compliance/audits' + query({ limit: 10, offset })), names]);
    return [auditsTable(res.data, n), pager(res.pagination, showAudits)];
  });
  showAudits(0);
  const showTemplates = (offset) => load(templates, async () => {
    const [res, n] = await Promise.all([get('/compliance/templates' + query({ limit: 10, offset })), names]);
    return [templatesTable(ctx, res.data, n, () => showTemplates(offset)), pager(res.pagination, showTemplates)];
  });
  showTemplates(0);
  return page;
}

function auditForm(ctx, list) {
  if (!ctx.can('member')) return h('p', { class: 'muted' }, 'Your role cannot start audits.');
  return [h('p', { class: 'muted small' }, 'An audit checks your Garrison data against the framework\'s controls. It counts as an agent run.'),
    form({ className: 'inline', submit: 'Run audit',
      fields: [{ name: 'framework', label: 'Framework', type: 'select', options: [['', 'All frameworks'], ...list.map((f) => [f.id, f.name])] }],
      onSubmit: async (v) => {
        const res = await post('/compliance/audit', v.framework ? { framework: v.framework } : {});
        ctx.navigate('/compliance/reports/' + encodeURIComponent(res.data.report_id));
      } })];
}

// counts shows frameworks' results; sum(f) gives a framework's counts.
const counts = (sum, first, last) => [first,
  { label: 'Completion', class: 'num', cell: (f) => pct(sum(f).completion_percentage) },
  ...[['Passed', 'passed'], ['Failed', 'failed'], ['Manual', 'manual'], ['N/A', 'not_applicable']].map(([label, k]) => ({ label, class: 'num', cell: (f) => num(sum(f)[k]) })),
  last];

function frameworksTable(list) {
  return table(counts((f) => ({ ...f.results, completion_percentage: f.last_report_id ? f.completion_percentage : '—' }),
    { label: 'Framework', cell: (f) => [h('strong', {}, f.name), h('div', { class: 'muted small' }, f.version)] },
    { label: 'Last audit', cell: (f) => (f.last_report_id ? [h('a', { href: '/compliance/reports/' + f.last_report_id }, time(f.last_audit_at)), h('div', { class: 'small' }, `${num(f.open_gaps)} open gaps`)] : 'Never') }),
  list, 'No frameworks.', 'Frameworks');
}

// Open gaps live in the audits that found them: read each framework's
// latest report once and keep its gaps that are still open.
async function gapsPanel(ctx, list) {
  const latest = [...new Set(list.map((f) => f.last_report_id).filter(Boolean))];
  if (!latest.length) return empty('No audit yet. Run one to find the gaps.');
  const names = nameMap(list);
  const docs = await Promise.all(latest.map((id) => get('/compliance/audits/' + encodeURIComponent(id))));
  const all = docs.flatMap((d) => d.data.gaps.filter((g) => g.status === 'open' && list.find((f) => f.id === g.framework)?.last_report_id === d.data.report_id));
  const rank = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };
  all.sort((a, b) => (rank[a.severity] ?? 9) - (rank[b.severity] ?? 9));
  const body = h('div');
  const filter = h('select', { id: 'gap-fw', onchange: () => show(0) }, h('option', { value: '' }, 'All frameworks'), list.map((f) => h('option', { value: f.id }, f.name)));
  const show = (offset) => {
    const rows = all.filter((g) => !filter.value || g.framework === filter.value);
    const limit = 10, next = offset + limit < rows.length ? offset + limit : null;
    body.replaceChildren(gapsList(ctx, rows.slice(offset, offset + limit), names), pager({ total: rows.length, limit, offset, next_offset: next }, show) || '');
  };
  show(0);
  return [h('div', { class: 'toolbar' }, h('div', { class: 'field' }, h('label', { for: 'gap-fw' }, 'Framework'), filter)), body];
}

// Gaps are cards: their evidence is prose that a narrow table would crush.
function gapsList(ctx, rows, names) {
  if (!rows.length) return empty('No open gaps. Every assessed control passes.');
  return h('div', {}, rows.map((g) => h('article', { class: 'card' },
    h('h3', {}, badge(g.severity), ` ${fwName(names, g.framework)} ${g.control_id}: ${g.control_title}`),
    g.failed.length ? g.failed.map((f) => h('p', {}, h('strong', {}, f.title), ': ', f.evidence)) : h('p', {}, 'Attested as failing.'),
    steps(g.remediation_steps),
    h('div', { class: 'actions' },
      ctx.can('member') ? h('button', { type: 'button', class: 'small', onclick: () => remediate(g, names) }, 'Remediate') : null,
      ctx.can('admin') && !g.failed.length ? h('button', { type: 'button', class: 'small secondary', onclick: () => attest(g.framework, fwName(names, g.framework), g.control_id, g.control_title) }, 'Attest') : null))));
}

const steps = (list) => (list?.length ? h('details', {}, h('summary', {}, `Remediation steps (${list.length})`), h('ol', {}, list.map((s) => h('li', {}, s)))) : null);

function remediate(g, names) {
  dialog(`Remediate ${fwName(names, g.framework)} ${g.control_id}`, (close) => {
    const box = h('div');
    box.append(h('p', {}, g.control_title), h('ol', {}, g.remediation_steps.map((s) => h('li', {}, s))),
      form({ submit: 'Remediate', cancel: close,
        fields: [{ name: 'auto_apply', label: 'What to do', type: 'select', value: g.auto_remediable ? 'true' : 'false',
          options: [['false', 'Plan: record the steps, change nothing'], ['true', 'Apply: make the changes Garrison can']],
          hint: g.auto_remediable ? 'Garrison can fix every failing check of this gap itself. Changing API keys needs an administrator.' : 'Garrison cannot fix this itself; applying records that a person must follow the steps.' }],
        onSubmit: async (v) => {
          const r = (await post('/compliance/remediate', { gap_id: g.gap_id, auto_apply: v.auto_apply === 'true' })).data;
          box.replaceChildren(notice(r.message), dl([['Status', badge(r.status)],
            ['Control now', r.control_result ? badge(r.control_result) : 'Not re-checked'], ['Recorded', time(r.created_at)]]),
          table([
            { label: 'Changed', cell: (c) => `${words(c.object)} ${c.id}: ${c.field}` },
            { label: 'Before', cell: (c) => String(c.before ?? '—') },
            { label: 'After', cell: (c) => String(c.after ?? '—') },
          ], r.changes, 'Nothing was changed.', 'Changes made'));
        } }));
    return box;
  });
}

// attest records an admin's statement about a control no check evidences.
function attest(framework, label, controlId, title) {
  dialog(`Attest ${label} ${controlId}`, (close) => {
    const box = h('div', {}, h('p', {}, title), form({ submit: 'Attest', cancel: close,
      fields: [
        { name: 'status', label: 'Status', type: 'select', required: true, options: [['pass', 'Pass'], ['fail', 'Fail'], ['not_applicable', 'Not applicable']] },
        { name: 'note', label: 'Note', type: 'textarea', maxlength: 2000, hint: 'How the control is met, or why not.' },
        { name: 'evidence_url', label: 'Evidence URL', type: 'url', placeholder: 'https://', hint: 'A document, ticket or screenshot an auditor can open.' },
        { name: 'expires_at', label: 'Expires on', type: 'date', hint: 'Optional, within three years. Attest again then.' }],
      onSubmit: async (v) => {
        // The day ends in the reader's zone; the API takes RFC 3339.
        const expires = v.expires_at ? new Date(v.expires_at + 'T23:59:59').toISOString() : null;
        await patch(`/compliance/controls/${encodeURIComponent(framework)}/${encodeURIComponent(controlId)}`,
          { status: v.status, note: v.note, evidence_url: v.evidence_url, expires_at: expires });
        box.replaceChildren(notice('Attested. It counts from the next audit on.'), h('button', { type: 'button', onclick: close }, 'Close'));
      } }));
    return box;
  });
}

function auditsTable(rows, names) {
  return table([
    { label: 'Audit', cell: (a) => [h('a', { href: '/compliance/reports/' + a.report_id }, time(a.completed_at || a.created_at)), ' ', badge(a.status)] },
    { label: 'Completion', cell: (a) => (a.summary ? Object.entries(a.summary).map(([id, s]) => `${fwName(names, id)} ${pct(s.completion_percentage)}`) : a.frameworks.map((id) => fwName(names, id))).join(' · ') },
  ], rows, 'No audits yet.', 'Past audits');
}

function templatesTable(ctx, rows, names, reload) {
  return table([
    { label: 'Policy', cell: (t) => [h('strong', {}, t.name), h('div', { class: 'muted small' }, t.description),
      h('div', { class: 'small' }, 'Controls: ', Object.entries(t.controls).map(([fw, ids]) => `${fwName(names, fw)} ${ids.length}`).join(' · '))] },
    { label: 'Adoption', cell: (t) => {
      const status = h('div', { 'aria-live': 'polite' });
      return [t.adopted ? [badge('adopted'), ' ', time(t.adopted_at)] : h('span', { class: 'muted' }, 'Not adopted'),
        h('div', { class: 'actions' },
          [['md', 'Markdown'], ['html', 'HTML']].map(([f, l]) => h('button', { type: 'button', class: 'small secondary', 'aria-label': `Download ${t.name} as ${l}`,
            onclick: () => fetchFile(`/compliance/templates/${encodeURIComponent(t.id)}/download?format=${f}`, `${t.id}.${f}`, status) }, l)),
          !t.adopted && ctx.can('member') ? h('button', { type: 'button', class: 'small', onclick: async (ev) => {
            ev.target.disabled = true;
            try { await post(`/compliance/templates/${encodeURIComponent(t.id)}/adopt`, {}); reload(); } catch (err) { status.replaceChildren(errorBox(err)); ev.target.disabled = false; }
          } }, 'Adopt') : null), status];
    } },
  ], rows, 'No policy templates.', 'Policy templates');
}

// fetchFile saves a download under the name the server gives it.
async function fetchFile(path, fallback, status) {
  status.replaceChildren();
  try {
    const res = await api('GET', path, undefined, { raw: true });
    const m = /filename="?([^";]+)"?/.exec(res.headers.get('Content-Disposition') || '');
    download(m ? m[1] : fallback, await res.text(), res.headers.get('Content-Type') || 'text/plain');
  } catch (err) {
    status.replaceChildren(errorBox(err));
  }
}

async function report(ctx) {
  const state = h('span'), body = h('div');
  const page = h('div', {}, h('p', { class: 'actions' }, h('a', { href: '/compliance' }, '← Compliance')), // .actions: not printed
    h('h1', {}, 'Compliance report ', state), body);
  const fill = async () => {
    ctx.people = await people(ctx); // names for ids (requester, attesters)
    const d = (await get('/compliance/audits/' + encodeURIComponent(ctx.params.id))).data;
    ctx.setTitle('Compliance report ' + time(d.completed_at || d.created_at).textContent);
    state.replaceChildren(badge(d.status));
    // Poll while the audit runs, as long as this page is shown, without
    // flashing the loading state.
    if (d.status === 'queued' || d.status === 'running') {
      setTimeout(async () => { if (page.isConnected) body.replaceChildren(...[await fill().catch(errorBox)].flat(Infinity).filter(Boolean)); }, 2000);
    }
    return reportBody(ctx, d);
  };
  await load(body, fill);
  return page;
}

function reportBody(ctx, d) {
  const done = d.status === 'completed';
  const status = h('div', { 'aria-live': 'polite' });
  const head = [
    done ? h('div', { class: 'actions' },
      h('button', { type: 'button', onclick: () => window.print() }, 'Print'),
      [['json', 'JSON'], ['csv', 'CSV'], ['html', 'HTML']].map(([f, l]) => h('button', { type: 'button', class: 'secondary',
        onclick: () => fetchFile(`/compliance/audits/${encodeURIComponent(d.report_id)}/download?format=${f}`, `garrison-audit-${d.report_id}.${f}`, status) }, 'Download ' + l))) : null,
    status,
    section('About this audit', dl([
      ['Organization', d.organization], ['Report', h('span', { class: 'mono' }, d.report_id)],
      ['Requested', time(d.created_at)], ['Completed', time(d.completed_at)],
      ['Requested by', personNode(ctx.people, d.requested_by)],
      ['Agent run', h('a', { href: `/agents/runs/${encodeURIComponent(d.agent_run_id)}?agent=compliance` }, d.agent_run_id)],
      ['Scope', d.scope], ['Method', d.method]])),
  ];
  if (d.status === 'failed') return [head, errorBox(d.error || 'The audit failed.')];
  if (!done) return [head, notice(`The audit is ${d.status}. This page refreshes when it completes.`)];
  const results = d.results || [];
  const gaps = Object.fromEntries(d.gaps.map((g) => [g.gap_id, g]));
  const filter = h('select', { id: 'ctl-result' }, [['', 'All results'], ['fail', 'Fail'], ['pass', 'Pass'], ['manual', 'Manual'], ['not_applicable', 'Not applicable']].map(([v, l]) => h('option', { value: v }, l)));
  const fwSel = h('select', { id: 'ctl-fw' }, h('option', { value: '' }, 'All frameworks'), results.map((r) => h('option', { value: r.framework }, r.name)));
  const controls = h('div');
  const showControls = () => controls.replaceChildren(...results.filter((r) => !fwSel.value || r.framework === fwSel.value).map((r) =>
    section(`${r.name} ${r.version}`, controlsList(ctx, r, r.controls.filter((c) => !filter.value || c.result === filter.value), gaps))));
  filter.onchange = fwSel.onchange = showControls;
  showControls();
  return [head,
    section('Summary', bars('Completion per framework', results.map((r) => ({ label: short(r), value: r.summary.completion_percentage }))),
      h('p', { class: 'muted small' }, formula),
      table(counts((r) => r.summary, { label: 'Framework', cell: (r) => r.name }, { label: 'Controls', class: 'num', cell: (r) => num(r.summary.controls_total) }),
        results, 'No frameworks in this audit.', 'Results per framework')),
    h('div', { class: 'toolbar' },
      h('div', { class: 'field' }, h('label', { for: 'ctl-fw' }, 'Framework'), fwSel),
      h('div', { class: 'field' }, h('label', { for: 'ctl-result' }, 'Result'), filter)),
    controls];
}

// Controls are cards, like gaps: a table of prose overflows a phone.
function controlsList(ctx, r, rows, gaps) {
  if (!rows.length) return empty('No controls with this result.');
  return rows.map((c) => {
    const g = c.gap_id && gaps[c.gap_id];
    return h('article', { class: 'card' },
      h('h3', {}, `${c.control_id} ${c.title} `, badge(c.result)),
      h('p', { class: 'muted small' }, `${c.family} · ${{ checks: 'automated', attestation: 'attested', none: 'not attested' }[c.basis] || c.basis} `,
        ctx.can('admin') && attestable(c) ? h('button', { type: 'button', class: 'small secondary', 'aria-label': `Attest ${c.control_id}`,
          onclick: () => attest(r.framework, short(r), c.control_id, c.title) }, 'Attest') : null),
      evidence(c, ctx.people),
      g ? [h('p', {}, h('strong', {}, 'Gap '), badge(g.severity), ' ', badge(g.status), ' Remediation:'), h('ol', {}, g.remediation_steps.map((x) => h('li', {}, x)))] : null);
  });
}

function evidence(c, people) {
  const a = c.attestation;
  const parts = c.findings.map((f) => h('p', {}, badge(f.result), ' ', h('strong', {}, f.title), ': ', f.evidence));
  if (a) {
    parts.push(h('p', {}, badge(a.expired ? 'expired' : a.status), ` Attested by ${people ? people.name(a.attested_by, { you: false }) : 'a member'} on `, time(a.attested_at),
      a.expires_at ? [', expires ', time(a.expires_at)] : null, a.note ? `: ${a.note}` : null,
      a.evidence_url ? [' ', h('a', { href: a.evidence_url, rel: 'noopener noreferrer', target: '_blank' }, 'Evidence')] : null));
  }
  return parts.length ? parts : h('span', { class: 'muted' }, 'No check evidences this control. It needs an attestation.');
}
