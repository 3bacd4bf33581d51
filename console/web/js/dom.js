// Building pages: elements from data (text is always text, never HTML),
// forms that show the API's errors beside their fields, tables, pagers,
// times in the reader's zone, and the loading, empty and error states.

import { ApiError, post } from './api.js';

// h makes an element. attrs: class, text, on<event> (functions), boolean
// properties (disabled, checked, required, hidden), anything else as an
// attribute. Children: nodes, strings, numbers, arrays; null and false are
// skipped.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k === 'value') el.value = v;
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

let ids = 0;
export const uid = (prefix = 'f') => `${prefix}-${++ids}`;

// time shows an API timestamp in the browser's zone, the UTC value on hover.
export function time(iso) {
  if (!iso) return h('span', { class: 'muted' }, '—');
  const d = new Date(iso);
  if (isNaN(d)) return h('span', {}, iso);
  const local = d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
  return h('time', { datetime: iso, title: 'UTC: ' + d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC') }, local);
}

// words turns an API value (threat_detected) into words (threat detected);
// Words also capitalises the first.
export const words = (s) => String(s ?? '').replace(/_/g, ' ');
export const Words = (s) => words(s).replace(/^./, (c) => c.toUpperCase());

// clip shortens text to at most n characters.
export const clip = (s, n) => (!s ? '—' : s.length > n ? s.slice(0, n - 3) + '…' : s);

// notFound is the page for an id that names nothing (404); other errors go on.
export function notFound(err, title, text, href, back) {
  if (err.status !== 404) throw err;
  return h('div', { class: 'page' }, h('h1', {}, title), h('p', {}, text), h('p', {}, h('a', { href }, back)));
}

export const num = (n) => (n === null || n === undefined ? '—' : Number(n).toLocaleString());

// badge shows a severity, status or role as a coloured word.
export function badge(value, kind) {
  const v = String(value ?? '—');
  return h('span', { class: `badge ${kind || ''} b-${v.toLowerCase().replace(/[^a-z0-9]+/g, '-')}` }, words(v));
}

export function loading(what = 'Loading') {
  return h('p', { class: 'loading', role: 'status' }, what + '…');
}

export function empty(message, action) {
  return h('div', { class: 'empty' }, h('p', {}, message), action || null);
}

// errorBox shows why something failed, in the API's words.
export function errorBox(err) {
  const msg = err instanceof ApiError || err instanceof Error ? err.message : String(err);
  return h('div', { class: 'error', role: 'alert' }, h('strong', {}, 'Error: '), msg);
}

// section is a titled panel.
export function section(title, ...children) {
  const id = uid('s');
  return h('section', { class: 'panel', 'aria-labelledby': id }, h('h2', { id }, title), ...children);
}

// load fills a container from an async function: a loading state first,
// then its nodes, or the error.
// quiet keeps what is shown until the new nodes are ready (a refresh).
export async function load(container, fn, { quiet = false } = {}) {
  if (!quiet || !container.childNodes.length) container.replaceChildren(loading());
  try {
    const nodes = await fn();
    container.replaceChildren(...[nodes].flat(Infinity).filter((n) => n !== null && n !== undefined && n !== false));
  } catch (err) {
    if (err && err.code === 'redirected') return;
    container.replaceChildren(errorBox(err));
  }
}

// table shows rows under labelled columns. columns: [{label, cell(row) →
// node or text, class}]. An empty list shows the empty message instead.
export function table(columns, rows, emptyMessage = 'Nothing here yet.', caption) {
  if (!rows || rows.length === 0) return empty(emptyMessage);
  return h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': caption || 'Table' },
    h('table', {},
      caption ? h('caption', { class: 'sr-only' }, caption) : null,
      h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col', class: c.class }, c.label)))),
      h('tbody', {}, rows.map((r) => h('tr', {}, columns.map((c) => h('td', { class: c.class, 'data-label': c.label }, h('div', {}, c.cell(r)))))))));
}

// pager moves through a list envelope's pages by buttons (a list inside a
// page; a page's own list keeps its page in the address: list.js).
export function pager(pagination, onOffset, caption) {
  if (!pagination) return null;
  return pageNav(pagination, caption, (page, label, attrs) => h('button', { type: 'button', class: 'secondary small', ...attrs,
    onclick: () => onOffset((page - 1) * pagination.limit) }, label));
}

// pageNav shows where a page is in a list (51–100 of 1,234) and offers
// the first, previous, the numbers around the current, next and last
// pages. item(page, label, attrs) makes one way to a page (a link or a
// button); the current page and the unreachable ones are marked, not
// offered.
export function pageNav({ total, limit, offset }, caption, item) {
  if (total <= limit && offset === 0) return h('p', { class: 'muted small pager-total' }, `${num(total)} in all`);
  const per = Math.max(1, limit);
  const last = Math.max(1, Math.ceil(total / per));
  const current = Math.floor(offset / per) + 1;
  const from = total === 0 || offset >= total ? 0 : offset + 1;
  const to = Math.min(offset + per, total);
  const off = (label, name) => h('span', { class: 'page-off', 'aria-disabled': 'true', title: name }, label);
  const step = (page, label, name, rel) => (page < 1 || page > last || page === current ? off(label, name)
    : item(page, label, { 'aria-label': name, rel, 'data-focus-key': 'page-' + name }));
  const numbers = [];
  const lo = Math.max(1, Math.min(current, last) - 2), hi = Math.min(last, Math.max(current, 1) + 2);
  if (lo > 1) numbers.push(h('span', { class: 'page-gap', 'aria-hidden': 'true' }, '…'));
  for (let p = lo; p <= hi; p++) {
    numbers.push(p === current
      ? h('span', { class: 'page-current', 'aria-current': 'page', tabindex: '-1' }, h('span', { class: 'sr-only' }, 'Page '), num(p))
      : item(p, num(p), { 'aria-label': `Page ${p}`, 'data-focus-key': 'page-' + p }));
  }
  if (hi < last) numbers.push(h('span', { class: 'page-gap', 'aria-hidden': 'true' }, '…'));
  return h('nav', { class: 'pager', 'aria-label': caption ? `Pages of ${caption}` : 'Pages' },
    h('span', { class: 'page-range' }, from ? `${num(from)}–${num(to)} of ${num(total)}` : `Page ${num(current)} of ${num(last)}: nothing here (${num(total)} in all)`),
    h('span', { class: 'page-steps' },
      step(1, '« First', 'First page'),
      step(current - 1, '‹ Previous', 'Previous page', 'prev'),
      numbers,
      step(current + 1, 'Next ›', 'Next page', 'next'),
      step(last, 'Last »', 'Last page')));
}

// choices are a select's options, keeping a value the address applied that
// is not among them, so the control still shows what is applied.
export const choices = (opts, current) => (current && !opts.some(([v]) => v === current) ? [...opts, [current, words(current)]] : opts);

// form builds a labelled form. fields: [{name, label, type ('text',
// 'email', 'password', 'number', 'textarea', 'select', 'checkbox', 'file',
// 'date', 'radio'), options: [[value, label, hint (radio)]], value, required, hint, placeholder,
// autocomplete, min, max, maxlength, rows}]. onSubmit(values, form) runs
// with the busy state shown; an ApiError it throws is shown at the top and
// beside each field the API named.
export function form({ fields, submit = 'Save', onSubmit, cancel, className }) {
  const inputs = {};
  const status = h('div', { class: 'form-status', 'aria-live': 'polite' });
  const button = h('button', { type: 'submit' }, submit);
  const el = h('form', { class: 'form ' + (className || ''), novalidate: true });
  // Own properties set before any control exists shadow the form's named
  // controls, so a field may be called "status" or "inputs" too.
  el.inputs = inputs;
  el.status = status;
  append(el, [status,
    fields.map((f) => {
      if (f.type === 'radio') return radios(f, inputs);
      const id = uid(f.name);
      const hintId = f.hint ? id + '-hint' : null;
      const errId = id + '-err';
      const common = { id, name: f.name, required: !!f.required, 'aria-describedby': [hintId, errId].filter(Boolean).join(' '),
        placeholder: f.placeholder, autocomplete: f.autocomplete, min: f.min, max: f.max, maxlength: f.maxlength, accept: f.accept };
      let input;
      if (f.type === 'textarea') input = h('textarea', { ...common, rows: f.rows || 4 });
      else if (f.type === 'select') input = h('select', common, f.options.map(([v, l]) => h('option', { value: v }, l)));
      else input = h('input', { ...common, type: f.type || 'text' });
      if (f.value !== undefined && f.value !== null) {
        if (f.type === 'checkbox') input.checked = !!f.value;
        else input.value = f.value;
      }
      inputs[f.name] = input;
      const label = h('label', { for: id }, f.label, f.required ? h('span', { class: 'req', 'aria-hidden': 'true' }, ' *') : null);
      return h('div', { class: 'field' + (f.type === 'checkbox' ? ' check' : ''), 'data-field': f.name },
        f.type === 'checkbox' ? [input, label] : [label, input],
        f.hint ? h('p', { class: 'hint', id: hintId }, f.hint) : null,
        h('p', { class: 'field-error', id: errId }));
    }),
    h('div', { class: 'actions' }, button,
      cancel ? h('button', { type: 'button', class: 'secondary', onclick: cancel }, 'Cancel') : null)]);
  el.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearErrors(el, status);
    const values = {};
    for (const [name, input] of Object.entries(inputs)) {
      if (input.tagName === 'FIELDSET') values[name] = input.querySelector('input:checked')?.value || '';
      else if (input.type === 'checkbox') values[name] = input.checked;
      else if (input.type === 'file') values[name] = input.files[0] || null;
      else values[name] = input.value;
    }
    button.disabled = true;
    const label = button.textContent;
    button.textContent = 'Working…';
    try {
      await onSubmit(values, el);
    } catch (err) {
      showErrors(el, status, err);
    } finally {
      button.disabled = false;
      button.textContent = label;
    }
  });
  return el;
}

// radios is a form's choice of one among a few, each option [value,
// label, hint], as a fieldset whose legend is the field's label.
function radios(f, inputs) {
  const id = uid(f.name);
  const errId = id + '-err';
  const hintId = f.hint ? id + '-hint' : null;
  const box = h('fieldset', { class: 'field radios', 'data-field': f.name, 'aria-describedby': [hintId, errId].filter(Boolean).join(' ') },
    h('legend', {}, f.label, f.required ? h('span', { class: 'req', 'aria-hidden': 'true' }, ' *') : null),
    f.hint ? h('p', { class: 'hint', id: hintId }, f.hint) : null,
    f.options.map(([value, label, hint]) => {
      const rid = uid(f.name);
      const input = h('input', { type: 'radio', id: rid, name: f.name, value, required: !!f.required,
        'aria-describedby': hint ? rid + '-hint' : null });
      if (f.value === value) input.checked = true;
      return h('div', { class: 'radio' }, input, h('label', { for: rid }, label, hint ? h('span', { class: 'hint', id: rid + '-hint' }, hint) : null));
    }),
    h('p', { class: 'field-error', id: errId }));
  inputs[f.name] = box;
  return box;
}

function clearErrors(el, status) {
  status.replaceChildren();
  for (const p of el.querySelectorAll('.field-error')) p.textContent = '';
  for (const i of el.querySelectorAll('[aria-invalid]')) i.removeAttribute('aria-invalid');
}

// showErrors puts an error at the top of a form and, for validation
// errors, each field's part of the message beside that field.
export function showErrors(el, status, err) {
  status.replaceChildren(errorBox(err));
  if (!(err instanceof ApiError)) return;
  for (const name of err.fields) {
    const root = name.replace(/[[.].*$/, '');
    const box = el.querySelector(`[data-field="${CSS.escape(root)}"]`);
    if (!box) continue;
    const part = err.message.replace(/^Invalid request: /, '').split('; ').find((s) => s.startsWith(name + ' ') || s.startsWith(name + '.') || s.startsWith(name + '['));
    box.querySelector('.field-error').textContent = part || 'Check this field.';
    const input = box.querySelector('input, select, textarea');
    if (input) input.setAttribute('aria-invalid', 'true');
  }
  const first = el.querySelector('[aria-invalid]');
  if (first) first.focus();
}

// notice is a short success message.
export function notice(message) {
  return h('div', { class: 'notice', role: 'status' }, message);
}

// dl shows label/value pairs.
export function dl(pairs) {
  return h('dl', { class: 'pairs' }, pairs.filter(Boolean).map(([k, v]) => [h('dt', {}, k), h('dd', {}, v ?? '—')]));
}

// dialog opens a modal with content; close() ends it, and onClose runs.
export function dialog(title, build, onClose) {
  const id = uid('d');
  const d = h('dialog', { 'aria-labelledby': id, class: 'modal' });
  const close = () => { d.close(); d.remove(); };
  d.append(h('div', { class: 'modal-head' }, h('h2', { id }, title), h('button', { type: 'button', class: 'icon', 'aria-label': 'Close', onclick: close }, '×')),
    build(close));
  d.addEventListener('close', () => { d.remove(); if (onClose) onClose(); });
  document.body.append(d);
  d.showModal();
  return close;
}

// confirmAction asks before a change that cannot be undone; the API's
// refusal stays in the dialog.
export function confirmAction(title, text, label, action) {
  dialog(title, (close) => {
    const status = h('div', { 'aria-live': 'polite' });
    const go = h('button', { type: 'button', class: 'danger', onclick: async () => {
      go.disabled = true;
      try { await action(); close(); } catch (err) { status.replaceChildren(errorBox(err)); go.disabled = false; }
    } }, label);
    return h('div', {}, h('p', {}, text), status,
      h('div', { class: 'actions' }, go, h('button', { type: 'button', class: 'secondary', onclick: close }, 'Cancel')));
  });
}

// stepUp runs an action that needs the password given in the last 10
// minutes: when the API asks for it again (403 reauthentication_required),
// a dialog asks for it, confirms it (POST /auth/reauthenticate, which
// renews the session) and the action runs again. Cancelled, it fails.
export async function stepUp(action) {
  try { return await action(); } catch (err) {
    if (err.code !== 'reauthentication_required') throw err;
  }
  await new Promise((resolve, reject) => {
    let ok = false;
    dialog('Confirm your password', (close) => h('div', {},
      h('p', {}, 'This change needs your password, given in the last 10 minutes. Confirm it to go on.'),
      form({ submit: 'Confirm and go on', cancel: close,
        fields: [{ name: 'password', label: 'Your password', type: 'password', required: true, autocomplete: 'current-password' }],
        onSubmit: async (v) => { await post('/auth/reauthenticate', { password: v.password }); ok = true; close(); } })),
    () => (ok ? resolve() : reject(new ApiError(403, 'reauthentication_required', 'Nothing was changed: your password was not confirmed.'))));
  });
  return action();
}

// copyButton copies a value to the clipboard.
export function copyButton(value, label = 'Copy') {
  const b = h('button', { type: 'button', class: 'secondary', onclick: async () => {
    try { await navigator.clipboard.writeText(value); b.textContent = 'Copied'; } catch { b.textContent = 'Select and copy'; }
    setTimeout(() => { b.textContent = label; }, 2000);
  } }, label);
  return b;
}

// download saves text as a file.
export function download(name, text, type = 'text/plain') {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// disclosure wires a header panel to its button: the button opens and
// closes it, Escape or a click outside closes it; onOpen runs as it opens
// (fill it, move the focus in). close(true) gives the focus back to the
// button.
export function disclosure(wrap, button, panel, onOpen) {
  const onKey = (ev) => { if (ev.key === 'Escape') close(true); };
  const onOutside = (ev) => { if (!wrap.contains(ev.target)) close(false); };
  function open() {
    panel.hidden = false;
    button.setAttribute('aria-expanded', 'true');
    onOpen();
    document.addEventListener('keydown', onKey);
    document.addEventListener('click', onOutside, true);
  }
  function close(refocus) {
    if (panel.hidden) return;
    panel.hidden = true;
    button.setAttribute('aria-expanded', 'false');
    document.removeEventListener('keydown', onKey);
    document.removeEventListener('click', onOutside, true);
    if (refocus) button.focus();
  }
  button.addEventListener('click', () => (panel.hidden ? open() : close(true)));
  return { open, close };
}
