// The time range a page shows (the last hour, 24 hours, 7 or 30 days, or
// from one time to another), kept in the address: ?range=24h, or
// ?range=custom&from=…&to=… (RFC 3339, the API's own form). A preset is
// counted back from now each time it is read, so a refresh moves with
// the clock.

import { h, uid } from './dom.js';

const HOUR = 3600e3, DAY = 24 * HOUR;
export const presets = { '1h': ['Last hour', HOUR], '24h': ['Last 24 hours', DAY], '7d': ['Last 7 days', 7 * DAY], '30d': ['Last 30 days', 30 * DAY] };

const pad = (n) => String(n).padStart(2, '0');

// iso is a time as the API writes it: UTC to the second.
export const iso = (d) => d.toISOString().replace(/\.\d+Z$/, 'Z');

// toLocal turns an RFC 3339 time into a datetime-local value in the
// reader's zone ('' when it does not parse).
export function toLocal(value) {
  const d = value ? new Date(value) : null;
  if (!d || isNaN(d)) return '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

// fromLocal turns a datetime-local value back into RFC 3339 UTC.
export function fromLocal(local) {
  const d = local ? new Date(local) : null;
  return d && !isNaN(d) ? iso(d) : '';
}

// readRange is the range the address names, else fallback ('all' for
// none): {key, label, from, to} with from and to RFC 3339 or ''.
export function readRange(q, fallback = 'all') {
  let key = q.get('range') || '';
  if (!key && (q.get('from') || q.get('to'))) key = 'custom';
  if (key !== 'custom' && key !== 'all' && !presets[key]) key = fallback;
  if (key === 'custom') {
    const from = q.get('from') || '', to = q.get('to') || '';
    return { key, from, to, label: customLabel(from, to) };
  }
  if (key === 'all') return { key, from: '', to: '', label: 'All time' };
  const [label, span] = presets[key];
  return { key, from: iso(new Date(Date.now() - span)), to: '', label };
}

const short = (v) => new Date(v).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
function customLabel(from, to) {
  const ok = (v) => v && !isNaN(new Date(v));
  if (ok(from) && ok(to)) return `${short(from)} – ${short(to)}`;
  if (ok(from)) return `Since ${short(from)}`;
  if (ok(to)) return `Until ${short(to)}`;
  return 'All time';
}

// rangePicker is the control: a choice of range and, for a custom one,
// the two times in the reader's zone. apply(params) gets the address
// parameters to set ({range, from, to}; '' removes one); choosing a
// preset applies it at once, a custom range with its button.
export function rangePicker({ range, fallback = 'all', apply, allowAll = true }) {
  const id = uid('range');
  const choices = [...(allowAll ? [['all', 'All time']] : []), ...Object.entries(presets).map(([k, [label]]) => [k, label]), ['custom', 'Custom range…']];
  const select = h('select', { id, name: 'range' }, choices.map(([v, l]) => h('option', { value: v }, l)));
  select.value = range.key;
  const fromId = uid('from'), toId = uid('to');
  const from = h('input', { type: 'datetime-local', id: fromId, name: 'from', step: '1', value: range.key === 'custom' ? toLocal(range.from) : '' });
  const to = h('input', { type: 'datetime-local', id: toId, name: 'to', step: '1', value: range.key === 'custom' ? toLocal(range.to) : '' });
  const problem = h('p', { class: 'field-error', id: id + '-err', role: 'alert' });
  const custom = h('div', { class: 'range-custom', hidden: range.key !== 'custom' },
    h('div', { class: 'field' }, h('label', { for: fromId }, 'From (your time)'), from),
    h('div', { class: 'field' }, h('label', { for: toId }, 'To (your time)'), to),
    h('button', { type: 'submit', class: 'secondary' }, 'Apply range'));
  const el = h('form', { class: 'range-picker', novalidate: true },
    h('div', { class: 'field' }, h('label', { for: id }, 'Time range'), select), custom, problem);
  const fire = () => {
    problem.textContent = '';
    const key = select.value;
    if (key !== 'custom') return apply({ range: key === fallback ? '' : key, from: '', to: '' });
    const f = fromLocal(from.value), t = fromLocal(to.value);
    if (!f && !t) { problem.textContent = 'Give a start, an end, or both.'; from.focus(); return; }
    if (f && t && f > t) { problem.textContent = 'The start must come before the end.'; from.focus(); return; }
    apply({ range: 'custom', from: f, to: t });
  };
  select.addEventListener('change', () => {
    custom.hidden = select.value !== 'custom';
    if (select.value === 'custom') {
      if (!from.value) from.value = toLocal(iso(new Date(Date.now() - DAY)));
      from.focus();
    } else fire();
  });
  el.addEventListener('submit', (ev) => { ev.preventDefault(); fire(); });
  return el;
}

// days is how many UTC days, ending today, a range reaches back into
// (at least 1, at most 365): what the risk timeline is asked for. The last
// 7 or 30 days are that many whole days, today the last of them.
export function days(range, fallback = 30) {
  if (range.key === '7d') return 7;
  if (range.key === '30d') return 30;
  if (!range.from) return fallback;
  const start = Date.parse(range.from);
  if (isNaN(start)) return fallback;
  const today = new Date();
  const todayStart = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  const firstStart = Date.UTC(new Date(start).getUTCFullYear(), new Date(start).getUTCMonth(), new Date(start).getUTCDate());
  return Math.min(365, Math.max(1, Math.round((todayStart - firstStart) / DAY) + 1));
}
