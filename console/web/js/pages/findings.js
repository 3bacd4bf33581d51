// Findings: every asset's software matched against the whole intelligence
// store. The fix-first list (the upgrade that closes the most, KEV and
// ransomware first), the organization's findings with their filters, and
// one finding's history with the decisions a person takes on it.

import { get, patch, query } from '../api.js';
import { h, section, load, table, form, time, badge, num, dl, dialog, notice } from '../dom.js';
import { pagedList, withParams, timeOf, text } from '../list.js';

export async function render(ctx) {
  return findings(ctx);
}

const PAGE = 25;
const pct = (x) => (x == null ? '—' : (x * 100).toFixed(1) + '%');
const score = (x) => (x == null ? '—' : x.toFixed(1));
export const statusLabels = { open: 'Open', fixed: 'Fixed', accepted_risk: 'Risk accepted', not_affected: 'Not affected' };
// VEX's justifications, as CycloneDX and OpenVEX name them.
const justifications = [
  ['component_not_present', 'The component is not present'],
  ['vulnerable_code_not_present', 'The vulnerable code is not present'],
  ['vulnerable_code_not_in_execute_path', 'The vulnerable code is never run'],
  ['vulnerable_code_cannot_be_controlled_by_adversary', 'An attacker cannot reach the vulnerable code'],
  ['inline_mitigations_already_exist', 'Mitigations already in place'],
];
const swLine = (s) => [s.vendor, s.product, s.version].filter(Boolean).join(' ');
const tags = (f) => [f.kev ? h('strong', { class: 'badge b-critical' }, 'KEV') : null, f.ransomware ? h('span', { class: 'badge b-high' }, 'Ransomware') : null];

function findings(ctx) {
  const q = ctx.query;
  const filters = {};
  for (const k of ['status', 'kev', 'min_cvss', 'min_epss', 'cve_id', 'vendor', 'product', 'asset']) filters[k] = q.get(k) || '';
  if (!q.has('status')) filters.status = 'open';
  const filtered = Object.entries(filters).some(([k, v]) => v && !(k === 'status' && v === 'open'));
  const msg = h('div', { 'aria-live': 'polite' });

  const priorities = pagedList({
    caption: 'Fix first', limit: 10, prefix: 'p', what: 'upgrades', natural: 'most urgent first', sort: { key: 'rank', order: 'desc' },
    emptyMessage: 'Nothing to upgrade: no open finding has a known fixed version.',
    fetch: ({ offset, limit }) => get('/findings/priorities' + query({ limit, offset })),
    columns: [
      { key: 'summary', label: 'Upgrade', cell: (p) => [h('strong', {}, p.summary),
        h('div', { class: 'small muted' }, p.closes.slice(0, 6).map((c) => c.cve_id).join(', ') + (p.closes.length > 6 ? ` and ${p.closes.length - 6} more` : ''))] },
      { key: 'host', label: 'Asset', cell: (p) => [h('a', { href: '/assets?asset=' + encodeURIComponent(p.asset_id) }, p.asset_hostname),
        p.internet_facing ? h('div', { class: 'small' }, 'Internet-facing') : null] },
      { key: 'closes', label: 'Closes', class: 'num', cell: (p) => num(p.closes.length) },
      { key: 'kev', label: 'KEV', class: 'num', cell: (p) => (p.kev ? h('strong', {}, num(p.kev)) : '—') },
      { key: 'cvss', label: 'Top CVSS', class: 'num', cell: (p) => score(p.max_cvss) },
      { key: 'epss', label: 'Top EPSS', class: 'num', cell: (p) => pct(p.max_epss) },
    ],
  });

  const list = pagedList({
    caption: 'Findings', limit: PAGE, what: 'findings', natural: 'KEV-listed and highest scored first', sort: { key: 'cvss', order: 'desc' },
    emptyMessage: filtered ? 'No finding matches these filters.' : filters.status === 'open' ? 'No open finding: no asset runs software the intelligence store knows to be vulnerable.' : 'No finding.',
    fetch: ({ offset, limit }) => get('/findings' + query({ ...filters, limit, offset })),
    columns: [
      { key: 'cve', label: 'CVE', first: 'asc', sort: (f) => f.cve_id, cell: (f) => [h('a', { href: withParams({ finding: f.id }), 'aria-label': `Finding ${f.cve_id} on ${f.asset_hostname}`,
        onclick: (ev) => { ev.preventDefault(); details(f.id); } }, h('strong', {}, f.cve_id)), ' ', tags(f)] },
      { key: 'asset', label: 'Asset', first: 'asc', sort: (f) => text(f.asset_hostname), cell: (f) => f.asset_hostname },
      { key: 'software', label: 'Software', first: 'asc', sort: (f) => text(swLine(f.software)), cell: (f) => [swLine(f.software),
        f.software.rule ? h('div', { class: 'small muted' }, f.software.rule) : null] },
      { key: 'cvss', label: 'CVSS', class: 'num', sort: (f) => f.cvss_score, server: (order) => (order === 'desc' ? {} : null), cell: (f) => score(f.cvss_score),
        descWords: 'highest first', ascWords: 'lowest first' },
      { key: 'epss', label: 'EPSS', class: 'num', sort: (f) => f.epss, cell: (f) => pct(f.epss), descWords: 'highest first', ascWords: 'lowest first' },
      { key: 'status', label: 'Status', first: 'asc', sort: (f) => f.status, cell: (f) => badge(statusLabels[f.status] || f.status) },
      { key: 'first', label: 'First found', sort: (f) => timeOf(f.first_seen), cell: (f) => time(f.first_seen), descWords: 'newest first', ascWords: 'oldest first' },
    ],
  });
  list.node.classList.add('wide-60');

  const filterForm = form({
    className: 'inline toolbar', submit: 'Apply filters',
    fields: [
      { name: 'status', label: 'Status', type: 'select', value: filters.status, options: [['', 'Any'], ...Object.entries(statusLabels)] },
      { name: 'kev', label: 'KEV', type: 'select', value: filters.kev, options: [['', 'Any'], ['true', 'Listed in KEV']] },
      { name: 'min_cvss', label: 'Minimum CVSS', type: 'number', min: 0, max: 10, value: filters.min_cvss, placeholder: '0–10' },
      { name: 'min_epss', label: 'Minimum EPSS', type: 'number', min: 0, max: 1, value: filters.min_epss, placeholder: '0–1' },
      { name: 'cve_id', label: 'CVE', value: filters.cve_id, placeholder: 'CVE-2024-3400', maxlength: 30 },
      { name: 'product', label: 'Product', value: filters.product, placeholder: 'fortios', maxlength: 100 },
    ],
    onSubmit: async (v) => {
      const next = { ...v, vendor: filters.vendor, asset: filters.asset };
      await get('/findings' + query({ ...next, limit: 0 })); // a bad filter shows beside its field
      ctx.navigate(withParams({ ...next, status: v.status || 'any', page: '' }));
    },
  });
  if (filters.status === 'any') filters.status = '';

  const details = (id) => dialog('Finding', (close) => {
    const box = h('div');
    load(box, async () => findingDetail((await get('/findings/' + encodeURIComponent(id))).data, close, (f) => {
      msg.replaceChildren(notice(`${f.cve_id} on ${f.asset_hostname}: ${statusLabels[f.status]}.`));
      list.reload({ quiet: true });
      priorities.reload({ quiet: true });
    }));
    return box;
  });

  priorities.reload();
  list.reload();
  if (q.get('finding')) details(q.get('finding'));
  return h('div', { class: 'page' },
    h('h1', {}, 'Findings'),
    h('p', { class: 'muted' }, 'Every asset\'s software matched against the whole local intelligence store, kept up to date as ',
      h('a', { href: '/assets' }, 'assets'), ' and imports change. The ', h('a', { href: '/cve-watchlist' }, 'CVE watchlist'), ' stays for CVEs you follow by hand.'),
    msg,
    section('Fix first', h('p', { class: 'muted small' }, 'The upgrade that closes the most open findings on each asset: ransomware-used and KEV-listed first, then EPSS, CVSS and internet-facing assets.'), priorities.node),
    section('Findings', filterForm, list.node));
}

// findingDetail shows a finding, its history and the decision form.
export function findingDetail(f, close, decided) {
  const out = [
    h('h3', {}, f.cve_id, ' on ', f.asset_hostname, ' ', tags(f)),
    dl([
      ['Status', [badge(statusLabels[f.status] || f.status), f.status_reason ? ' ' + f.status_reason : '', f.expires_at ? ` (until ${new Date(f.expires_at).toLocaleDateString()})` : '']],
      ['Software', [swLine(f.software), f.software.rule ? h('div', { class: 'small muted' }, 'Named by ' + f.software.rule) : null]],
      ['Why it matches', f.reason + (f.version_known ? '' : ' (version not known)')],
      ['CVSS', score(f.cvss_score)], ['EPSS', pct(f.epss)],
      ['First found', time(f.first_seen)], ['Last matched', time(f.last_seen)],
      f.fixed_at ? ['Fixed', time(f.fixed_at)] : null,
    ].filter(Boolean)),
    h('h3', {}, 'History'),
    table([
      { label: 'When', cell: (c) => time(c.at) },
      { label: 'Who', cell: (c) => (c.actor === 'garrison' ? 'Garrison' : c.actor) },
      { label: 'Status', cell: (c) => badge(statusLabels[c.status] || c.status) },
      { label: 'Why', cell: (c) => c.reason },
    ], f.history, 'No change yet.', 'Finding history'),
  ];
  if (f.status === 'fixed') return out;
  const month = new Date(Date.now() + 30 * 86400e3).toISOString().slice(0, 10);
  out.push(h('h3', {}, 'Decide'), form({
    submit: 'Save decision', cancel: close,
    fields: [
      { name: 'status', label: 'Decision', type: 'radio', required: true, value: f.status === 'open' ? 'accepted_risk' : 'open', options: [
        ['accepted_risk', 'Accept the risk until a date', 'It reopens by itself then.'],
        ['not_affected', 'Not affected', 'Say why, as VEX does.'],
        ['open', 'Reopen', 'Back to the open findings.'],
      ].filter(([v]) => v !== f.status) },
      { name: 'reason', label: 'Reason', type: 'textarea', rows: 2, maxlength: 500, hint: 'Required unless you reopen it; shown in the history.' },
      { name: 'expires_at', label: 'Accept until', type: 'date', value: month, hint: 'At most a year ahead.' },
      { name: 'justification', label: 'Justification (not affected)', type: 'select', options: [['', 'Choose…'], ...justifications] },
    ],
    onSubmit: async (v) => {
      const body = { status: v.status, reason: v.reason.trim() };
      if (v.status === 'accepted_risk' && v.expires_at) body.expires_at = v.expires_at + 'T23:59:59Z';
      if (v.status === 'not_affected') body.justification = v.justification;
      const res = await patch('/findings/' + encodeURIComponent(f.id), body);
      close();
      decided(res.data);
    },
  }));
  return out;
}
