// Vulnerability intelligence: the CVE watchlist (with the intelligence
// store's state and the notifications its updates raise), one watched CVE
// with its enrichment, and the asset inventory (with its findings and
// inventory imports) the CVEs are matched against.

import { get, post, patch, del, query, ApiError } from '../api.js';
import { h, section, load, table, form, time, badge, num, notice, dl, dialog, clip, notFound, words, confirmAction } from '../dom.js';
import { pagedList, withParams, severityRank, timeOf, text } from '../list.js';

export async function render(ctx) {
  if (ctx.view === 'entry') return entry(ctx).catch((err) => notFound(err, 'Watched CVE', 'This CVE is not on your watchlist (it may have been removed).', '/cve-watchlist', 'Back to the watchlist'));
  if (ctx.view === 'assets') return assets(ctx);
  return watchlist(ctx);
}

const PAGE = 25;

const patchLabels = { patch_available: 'Patch available', no_patch_known: 'No patch known', unknown: 'Unknown' };
const pct = (x) => (x == null ? '—' : (x * 100).toFixed(1) + '%');
// A feed's reference is linked only when it is a web address; any other
// text (a javascript: URL, say) is shown as text.
const ext = (url, text) => (/^https?:\/\//i.test(url) ? h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, text || url) : h('span', {}, text || url));

// ---- Watchlist ----

function watchlist(ctx) {
  const q = ctx.query;
  const filters = { min_score: q.get('min_score') || '', kev: q.get('kev') || '', patch_status: q.get('patch_status') || '', affected: q.get('affected') || '' };
  const status = h('div'), added = h('div');
  const filtered = Object.values(filters).some(Boolean);
  // The API sorts by when an entry was added, its score and its newest
  // intelligence (each newest or highest first); other columns, and the
  // other direction, sort the page shown.
  const list = pagedList({
    caption: 'Watched CVEs', limit: PAGE, what: 'the watchlist', natural: 'newest added first', sort: { key: 'added', order: 'desc' },
    emptyMessage: filtered ? 'No watched CVE matches these filters.' : 'No CVE is watched yet. Add one above.',
    fetch: ({ offset, limit, api }) => get('/cve-watchlist' + query({ ...filters, limit, offset, ...api })),
    columns: [
      // The description sits under the id: a column of its own squeezed the id onto three lines.
      { key: 'cve', label: 'CVE', first: 'asc', sort: (e) => e.cve_id, cell: (e) => [h('a', { href: '/cve-watchlist/' + e.id }, h('strong', {}, e.cve_id)),
        h('div', { class: 'small' + (e.status === 'pending' ? ' muted' : '') }, e.status === 'pending' ? 'Not in the local intelligence store yet' : short(e.description))] },
      { key: 'severity', label: 'Severity', sort: (e) => (e.status === 'pending' ? null : severityRank(e.severity)), descWords: 'most severe first', ascWords: 'least severe first',
        cell: (e) => (e.status === 'pending' ? badge('pending') : badge(e.severity || 'none')) },
      { key: 'score', label: 'CVSS', class: 'num', sort: (e) => e.cvss_score, server: (order) => (order === 'desc' ? { sort: 'score' } : null),
        cell: (e) => (e.cvss_score == null ? '—' : e.cvss_score.toFixed(1)), descWords: 'highest first', ascWords: 'lowest first' },
      { key: 'kev', label: 'KEV', sort: (e) => (e.kev ? 1 : 0), cell: (e) => (e.kev ? h('strong', {}, 'Listed') : '—'), descWords: 'listed first', ascWords: 'unlisted first' },
      { key: 'epss', label: 'EPSS', class: 'num', sort: (e) => e.epss?.score ?? null, cell: (e) => pct(e.epss?.score), descWords: 'highest first', ascWords: 'lowest first' },
      { key: 'patch', label: 'Patch', first: 'asc', sort: (e) => patchLabels[e.patch_status] || e.patch_status, cell: (e) => patchLabels[e.patch_status] || e.patch_status },
      { key: 'assets', label: 'Assets hit', class: 'num', sort: (e) => e.affected_assets?.length || 0, cell: (e) => num(e.affected_assets?.length || 0),
        descWords: 'most first', ascWords: 'fewest first' },
      { key: 'updated', label: 'Intelligence updated', sort: (e) => timeOf(e.last_intel_update), server: (order) => (order === 'desc' ? { sort: 'updated' } : null),
        cell: (e) => time(e.last_intel_update), descWords: 'newest first', ascWords: 'oldest first' },
      { key: 'added', label: 'Added', sort: (e) => timeOf(e.added_at), server: (order) => (order === 'desc' ? {} : null), cell: (e) => time(e.added_at),
        descWords: 'newest first', ascWords: 'oldest first' },
    ],
  });
  list.node.classList.add('wide-60');

  const filterForm = form({
    className: 'inline toolbar', submit: 'Apply filters',
    fields: [
      { name: 'min_score', label: 'Minimum CVSS', type: 'number', min: 0, max: 10, value: filters.min_score, placeholder: '0–10' },
      { name: 'kev', label: 'KEV', type: 'select', value: filters.kev, options: [['', 'Any'], ['true', 'Listed in KEV']] },
      { name: 'patch_status', label: 'Patch', type: 'select', value: filters.patch_status, options: [['', 'Any'], ...Object.entries(patchLabels)] },
      { name: 'affected', label: 'Assets', type: 'select', value: filters.affected, options: [['', 'Any'], ['true', 'Affecting an asset']] },
    ],
    onSubmit: async (v) => {
      // Check the filters with the API first so a bad one shows beside its field.
      await get('/cve-watchlist' + query({ ...v, limit: 0 }));
      ctx.navigate(withParams({ ...v, page: '' }));
    },
  });

  const addForm = form({
    submit: 'Watch this CVE',
    fields: [{ name: 'cve_id', label: 'CVE identifier', required: true, placeholder: 'CVE-2021-44228', maxlength: 30,
      hint: 'Enriched at once from the local intelligence store, or kept pending until an import brings it.' }],
    onSubmit: async (v, el) => {
      let res;
      try {
        res = await post('/cve-watchlist', { cve_id: v.cve_id.trim() });
      } catch (err) {
        const id = err.code === 'conflict' && /cvw_[0-9a-z]+/.exec(err.message);
        if (!id) throw err;
        added.replaceChildren(h('div', { class: 'notice', role: 'status' }, 'Already watched. ', h('a', { href: '/cve-watchlist/' + id[0] }, 'Open ' + v.cve_id.trim().toUpperCase())));
        return;
      }
      const e = res.data;
      el.reset();
      added.replaceChildren(h('div', { class: 'notice', role: 'status' }, h('a', { href: '/cve-watchlist/' + e.id }, e.cve_id), ' added: ',
        e.status === 'pending' ? 'not in the local intelligence store yet, so it stays pending until an import brings it.' : `${e.severity || 'no'} severity, ${e.affected_assets.length} asset(s) affected.`));
      list.reload({ quiet: true });
    },
  });

  load(status, async () => intelStatus((await get('/intel/status')).data));
  list.reload();
  return h('div', { class: 'page' },
    h('h1', {}, 'CVE watchlist'),
    h('p', { class: 'muted' }, 'CVEs your organization follows, enriched from the local intelligence store and matched against your ', h('a', { href: '/assets' }, 'assets'), '.'),
    h('div', { class: 'grid' }, section('Add a CVE', addForm, added), section('Intelligence store', status)),
    section('Watched CVEs', filterForm, list.node),
    h('p', { class: 'muted small' }, 'Each import that changes a watched CVE notifies you: see the bell at the top, or ', h('a', { href: '/notifications' }, 'all notifications'), '.'));
}

const short = (s) => clip(s, 140);

function intelStatus(s) {
  const c = s.counts || {};
  const imports = Object.entries(s.last_imports || {});
  return [
    c.cves ? null : h('p', {}, h('strong', {}, 'The store holds no CVE yet.'), ' Watched CVEs stay pending until the appliance operator imports intelligence (garrison intel import, or an admin upload).'),
    dl([
      ['CVEs', num(c.cves)],
      ['From NVD / CVE 5', `${num(c.nvd)} / ${num(c.cve5)}`],
      ['KEV entries', num(c.kev)],
      ['EPSS scores', num(c.epss)],
      ['ATT&CK techniques', c.attack_techniques ? num(c.attack_techniques) : 'built-in catalog'],
      ['Newest record', time(s.newest_record)],
      s.running?.length ? ['Importing now', s.running.map((i) => i.name).join(', ')] : null,
    ]),
    imports.length ? h('details', {}, h('summary', {}, 'Last import of each format'),
      table([
        { label: 'Format', cell: (x) => x[0] },
        { label: 'File', cell: (x) => x[1].name },
        { label: 'Records', class: 'num', cell: (x) => num(x[1].records) },
        { label: 'Finished', cell: (x) => time(x[1].finished_at) },
      ], imports, '', 'Last imports')) : null,
  ];
}

// ---- One watched CVE ----

async function entry(ctx) {
  const e = (await get('/cve-watchlist/' + encodeURIComponent(ctx.params.id))).data;
  ctx.setTitle(e.cve_id);
  const pending = e.status === 'pending';
  const remove = () => confirmAction('Stop watching ' + e.cve_id + '?', 'Its monitoring and notifications stop. You can add it again later.',
    'Remove from the watchlist', async () => { await del('/cve-watchlist/' + e.id); ctx.navigate('/cve-watchlist'); });
  const score = (v) => (v == null ? '—' : v.toFixed(1));
  return h('div', { class: 'page' },
    h('p', { class: 'small' }, h('a', { href: '/cve-watchlist' }, '← Watchlist')),
    h('h1', {}, h('span', { class: 'mono' }, e.cve_id), pending ? badge('pending') : badge(e.severity || 'none'), e.kev ? badge('KEV', 'b-critical') : null),
    h('div', { class: 'actions' },
      ext(`https://nvd.nist.gov/vuln/detail/${e.cve_id}`, 'NVD page ↗'),
      h('button', { type: 'button', class: 'danger small', onclick: remove }, 'Remove from watchlist')),
    pending ? h('div', { class: 'notice', role: 'status' }, h('strong', {}, 'Not in the local intelligence store yet. '),
      `${e.cve_id} is watched but this appliance holds no record of it, so there is no score, description or asset match. It is enriched by the next import that brings it, and a notification says so.`) : null,
    section('Summary',
      e.description ? h('p', {}, e.description) : null,
      dl([
        ['Status', badge(e.status)],
        ['Published', time(e.published)],
        ['CVSS', e.cvss_score == null ? '—' : [h('strong', {}, score(e.cvss_score)), ` (v${e.cvss_version}) `, h('span', { class: 'mono small' }, e.cvss_vector)]],
        ['EPSS', e.epss ? `${pct(e.epss.score)} chance of exploitation in 30 days (percentile ${pct(e.epss.percentile)}, ${e.epss.date})` : '—'],
        ['CISA KEV', e.kev ? `Listed ${e.kev.date_added}, due ${e.kev.due_date}; ransomware use ${e.kev.ransomware_use}` : 'Not listed'],
        e.kev ? ['Required action', e.kev.required_action] : null,
        ['Patch', patchLabels[e.patch_status] || e.patch_status],
        ['Product', e.vendor ? `${e.vendor} ${e.product}` : '—'],
        ['Weaknesses', e.cwe.length ? e.cwe.map((c, i) => [i ? ', ' : '', /^CWE-\d+$/.test(c) ? ext(`https://cwe.mitre.org/data/definitions/${c.slice(4)}.html`, c) : c]) : '—'],
        e.ssvc ? ['CISA SSVC', `exploitation ${e.ssvc.exploitation}, automatable ${e.ssvc.automatable}, technical impact ${e.ssvc.technical_impact}`] : null,
        ['Intelligence updated', time(e.last_intel_update)],
        ['Watched since', time(e.added_at)],
      ])),
    Object.keys(e.cvss).length ? section('CVSS scores',
      table([
        { label: 'Version', cell: (x) => x[0] },
        { label: 'Score', class: 'num', cell: (x) => score(x[1].score) },
        { label: 'Severity', cell: (x) => badge(x[1].severity) },
        { label: 'Vector', cell: (x) => h('span', { class: 'mono small' }, x[1].vector) },
        { label: 'Source', cell: (x) => x[1].source },
        { label: 'Recomputed', cell: (x) => (x[1].computed_score == null ? '—' : `${score(x[1].computed_score)}${x[1].matches_published ? ' (matches)' : ' (differs)'}`) },
      ], Object.entries(e.cvss), '', 'CVSS scores by version')) : null,
    section('Affected assets',
      table([
        { label: 'Asset', cell: (a) => h('a', { href: '/assets?asset=' + a.asset_id }, a.hostname) },
        { label: 'Owner', cell: (a) => a.owner || '—' },
        { label: 'Software', cell: (a) => `${a.software.vendor} ${a.software.product} ${a.software.version || '(no version)'}` },
        { label: 'Why', cell: (a) => [a.reason, a.version_known ? null : h('span', { class: 'muted' }, ' — version unknown')] },
      ], e.affected_assets || [], pending ? 'Assets are matched once the CVE has intelligence.' : 'No asset of the inventory runs an affected version.', 'Affected assets')),
    section('References',
        h('h3', {}, 'Patches and advisories'), refs(e.patch_references),
        h('h3', {}, 'Exploits'), refs(e.exploit_references)),
    section('ATT&CK techniques',
        table([
          { label: 'Technique', cell: (t) => ext(t.url, t.id) },
          { label: 'Name', cell: (t) => t.name },
          { label: 'Tactics', cell: (t) => t.tactics.join(', ') },
          { label: 'From', cell: (t) => (t.source === 'ctid' ? `CTID mapping${t.role ? ' (' + t.role + ')' : ''}` : h('span', { class: 'small' }, t.via || t.source)) },
        ], e.attack_techniques || [], 'No technique mapped.', 'ATT&CK techniques')),
    section('History of changes',
      table([
        { label: 'When', cell: (c) => time(c.at) },
        { label: 'Field', cell: (c) => (c.field === 'record' ? 'First arrival' : words(c.field)) },
        { label: 'From', cell: (c) => patchLabels[c.from] || (c.from ?? '—') },
        { label: 'To', cell: (c) => patchLabels[c.to] || (c.to ?? '—') },
      ], e.history || [], 'No change since it was added.', 'History of changes')));
}

function refs(urls) {
  if (!urls.length) return h('p', { class: 'muted' }, 'None known.');
  const ul = h('ul', {}, urls.map((u) => h('li', { class: 'small' }, ext(u))));
  ul.style.setProperty('overflow-wrap', 'anywhere'); // long URLs must not widen a phone screen
  return ul;
}

// ---- Assets ----

function assets(ctx) {
  const msg = h('div', { 'aria-live': 'polite' });
  // The API lists assets by host name; the other columns sort the page shown.
  const list = pagedList({
    caption: 'Assets', limit: PAGE, what: 'assets', natural: 'by host name', sort: { key: 'hostname', order: 'asc' },
    emptyMessage: 'No asset yet. Add the machines you look after so watched CVEs can be matched to them.',
    fetch: ({ offset, limit }) => get('/assets' + query({ limit, offset })),
    columns: [
      { key: 'hostname', label: 'Hostname', first: 'asc', sort: (a) => a.hostname, server: (order) => (order === 'asc' ? {} : null), ascWords: 'A to Z', descWords: 'Z to A',
        cell: (a) => h('button', { type: 'button', class: 'secondary small', 'aria-label': `Details of ${a.hostname}`, onclick: () => details(a.id) }, a.hostname) },
      { key: 'ip', label: 'IP', first: 'asc', sort: (a) => a.ip || null, cell: (a) => h('span', { class: 'mono' }, a.ip || '—') },
      { key: 'os', label: 'OS', first: 'asc', sort: (a) => text(a.os || null), cell: (a) => a.os || '—' },
      { key: 'owner', label: 'Owner', first: 'asc', sort: (a) => text(a.owner || null), cell: (a) => a.owner || '—' },
      { key: 'software', label: 'Software', class: 'num', sort: (a) => a.software.length, cell: (a) => num(a.software.length), descWords: 'most first', ascWords: 'fewest first' },
      { key: 'updated', label: 'Updated', sort: (a) => timeOf(a.updated_at), cell: (a) => time(a.updated_at), descWords: 'newest first', ascWords: 'oldest first' },
      { key: 'actions', label: 'Actions', cell: (a) => h('div', { class: 'actions' },
        h('button', { type: 'button', class: 'secondary small', 'aria-label': `Edit ${a.hostname}`, onclick: () => edit(a) }, 'Edit'),
        h('button', { type: 'button', class: 'danger small', 'aria-label': `Delete ${a.hostname}`, onclick: () => remove(a) }, 'Delete')) },
    ],
  });
  const show = () => list.reload({ quiet: true });
  const done = (text) => { msg.replaceChildren(notice(text)); show(); };

  const edit = (a) => dialog(a ? 'Edit ' + a.hostname : 'Add an asset', (close) => assetForm(a, close, async (body) => {
    const res = a ? await patch('/assets/' + a.id, body) : await post('/assets', body);
    close();
    done(a ? `${res.data.hostname} saved.` : `${res.data.hostname} ${res.data.created ? 'added' : 'already existed and was updated'}.`);
  }));

  const remove = (a) => confirmAction('Delete ' + a.hostname + '?', 'The asset and its software list are removed; watched CVEs no longer match it.',
    'Delete asset', async () => { await del('/assets/' + a.id); done(`${a.hostname} deleted.`); });

  const details = (id) => dialog('Asset', () => {
    const box = h('div');
    load(box, async () => {
      const as = (await get('/assets/' + encodeURIComponent(id))).data;
      return [
        h('h3', {}, as.hostname),
        dl([['IP', as.ip || '—'], ['OS', as.os || '—'], ['Owner', as.owner || '—'], ['Internet-facing', as.internet_facing ? 'Yes' : 'No'],
          as.identifier ? ['Agent identifier', h('span', { class: 'mono' }, as.identifier)] : null, ['Added', time(as.created_at)], ['Updated', time(as.updated_at)]].filter(Boolean)),
        h('h3', {}, `Findings (${as.findings_total ?? 0})`),
        table([
          { label: 'CVE', cell: (f) => [h('a', { href: '/findings?status=any&finding=' + encodeURIComponent(f.id) }, f.cve_id), f.kev ? [' ', h('strong', { class: 'badge b-critical' }, 'KEV')] : null] },
          { label: 'CVSS', class: 'num', cell: (f) => (f.cvss_score == null ? '—' : f.cvss_score.toFixed(1)) },
          { label: 'Software', cell: (f) => [f.software.product, ' ', f.software.version || ''] },
          { label: 'Status', cell: (f) => badge(f.status) },
        ], as.findings || [], 'No finding: none of its software is known to be vulnerable.', 'Findings of the asset'),
        as.findings_total > (as.findings || []).length ? h('p', {}, h('a', { href: '/findings?status=any&asset=' + encodeURIComponent(as.id) }, `All ${as.findings_total} findings`)) : null,
        h('h3', {}, 'Software'),
        table([
          { label: 'Vendor', cell: (s) => s.vendor },
          { label: 'Product', cell: (s) => s.product },
          { label: 'Version', cell: (s) => s.version || '—' },
          { label: 'Named by', cell: (s) => (s.cpe ? h('span', { class: 'mono small' }, s.cpe) : s.rule ? h('span', { class: 'small' }, s.rule) : '—') },
        ], as.software, 'No software listed: no CVE can be matched to this asset.', 'Software'),
      ];
    });
    return box;
  });

  const importInventory = () => dialog('Import an inventory', (close) => inventoryForm(close, (rep) => {
    const n = rep.assets.length;
    msg.replaceChildren(inventoryReport(rep, n));
    show();
  }));

  list.reload();
  if (ctx.query.get('asset')) details(ctx.query.get('asset'));
  return h('div', { class: 'page' },
    h('h1', {}, 'Assets'),
    h('p', { class: 'muted' }, 'The machines you look after and their software, matched against the whole intelligence store: see their ',
      h('a', { href: '/findings' }, 'findings'), ' and the ', h('a', { href: '/cve-watchlist' }, 'CVE watchlist'), '.'),
    h('div', { class: 'actions' }, h('button', { type: 'button', onclick: () => edit(null) }, 'Add an asset'),
      h('button', { type: 'button', class: 'secondary', onclick: importInventory }, 'Import an inventory')),
    msg, list.node);
}

// inventoryForm sends a file of the formats POST /assets/import reads.
function inventoryForm(close, done) {
  return form({
    submit: 'Import', cancel: close,
    fields: [
      { name: 'file', label: 'Inventory file', type: 'file', required: true, accept: '.json,.csv,.log,.ndjson,.txt',
        hint: 'A CycloneDX SBOM (JSON), osquery results (one host\'s tables, one query\'s rows or a pack\'s results log) or a CSV whose first row names its columns (hostname and product at least).' },
      { name: 'hostname', label: 'Host name', maxlength: 253, placeholder: 'web-01.client.local',
        hint: 'For an SBOM or osquery rows that do not name their host.' },
      { name: 'partial', label: 'Keep the good hosts of a file with bad records', type: 'checkbox' },
    ],
    onSubmit: async (v) => {
      if (!v.file) throw new Error('Choose a file to import.');
      const body = await v.file.text();
      const type = /\.csv$/i.test(v.file.name) ? 'text/csv' : /\.(log|ndjson)$/i.test(v.file.name) ? 'application/x-ndjson' : /\.json$/i.test(v.file.name) ? 'application/json' : 'text/plain';
      const res = await post('/assets/import' + query({ hostname: v.hostname.trim(), partial: v.partial ? 'true' : '' }), undefined, { text: body, contentType: type });
      close();
      done(res.data);
    },
  });
}

const count = (n, noun) => `${n} ${noun}${n === 1 ? '' : 's'}`;

// inventoryReport says what an import did, host by host.
function inventoryReport(rep, n) {
  const formats = { cyclonedx: 'CycloneDX SBOM', osquery: 'osquery results', csv: 'CSV' };
  return h('div', { class: 'notice', role: 'status' },
    h('p', {}, h('strong', {}, `${formats[rep.format] || rep.format}: ${count(n, 'asset')} imported`),
      rep.skipped ? ` (${count(rep.skipped, 'record')} of other queries skipped)` : '', '.'),
    table([
      { label: 'Asset', cell: (a) => h('a', { href: '/assets?asset=' + encodeURIComponent(a.id) }, a.hostname) },
      { label: 'State', cell: (a) => (a.created ? 'New' : 'Updated') },
      { label: 'Added', class: 'num', cell: (a) => num(a.added.length) },
      { label: 'Changed', class: 'num', cell: (a) => num(a.changed.length) },
      { label: 'Removed', class: 'num', cell: (a) => num(a.removed.length) },
    ], rep.assets, 'No asset.', 'Imported assets'),
    rep.problems.length ? [h('p', {}, `${count(rep.problems.length, 'record')} left out:`),
      h('ul', {}, rep.problems.slice(0, 20).map((p) => h('li', {}, `${p.where}: ${p.reason}`)))] : null,
    h('p', {}, h('a', { href: '/findings' }, 'See the findings')));
}

// Software is edited as lines "vendor, product, version, cpe" (version and cpe optional).
const swText = (list) => list.map((s) => [s.vendor, s.product, s.version, s.cpe].filter(Boolean).join(', ')).join('\n');
const swParse = (text) => text.split('\n').map((l) => l.trim()).filter(Boolean).map((l) => {
  const [vendor = '', product = '', version = '', cpe = ''] = l.split(',').map((p) => p.trim());
  return cpe ? { vendor, product, version, cpe } : { vendor, product, version };
});

function assetForm(a, close, save) {
  return form({
    submit: a ? 'Save' : 'Add asset', cancel: close,
    fields: [
      { name: 'hostname', label: 'Hostname', required: true, value: a?.hostname, maxlength: 253, placeholder: 'web-01.client.local' },
      { name: 'ip', label: 'IP address', value: a?.ip, placeholder: '10.0.0.5' },
      { name: 'os', label: 'Operating system', value: a?.os, maxlength: 100 },
      { name: 'owner', label: 'Owner (client)', value: a?.owner, maxlength: 100 },
      { name: 'software', label: 'Software', type: 'textarea', rows: 5, value: a ? swText(a.software) : '',
        placeholder: 'apache, http_server, 2.4.49\nmicrosoft, exchange_server, 15.2', hint: 'One per line: vendor, product, version (no spaces), and optionally a CPE 2.3 name.' },
    ],
    onSubmit: async (v) => {
      try {
        await save({ hostname: v.hostname.trim(), ip: v.ip.trim(), os: v.os.trim(), owner: v.owner.trim(), software: swParse(v.software) });
      } catch (err) {
        // Name software problems by line, beside the box they came from.
        if (err instanceof ApiError) {
          err.message = err.message.replace(/\bsoftware\.(\d+)\.(\w+)/g, (_, i, f) => `software line ${+i + 1}: ${f}`);
          err.fields = err.fields.map((f) => f.replace(/^software\..*/, 'software'));
        }
        throw err;
      }
    },
  });
}
