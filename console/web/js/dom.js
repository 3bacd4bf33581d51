// Building pages: elements from data (text is always text, never HTML),
// forms that show the API's errors beside their fields, tables, pagers,
// times in the reader's zone, and the loading, empty and error states.

import { ApiError, get, query } from './api.js';

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

// wide gives a table in node a minimum width: on a wide screen it scrolls
// in its frame rather than squeezing every column (phones show cards).
export function wide(minWidth, node) {
  node.querySelector('table')?.style.setProperty('min-width', minWidth);
  return node;
}

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
export async function load(container, fn) {
  container.replaceChildren(loading());
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

// pager moves through a list envelope's pages.
export function pager(pagination, onOffset) {
  if (!pagination) return null;
  const { total, limit, offset } = pagination;
  if (total <= limit && offset === 0) return h('p', { class: 'muted small' }, `${num(total)} in all`);
  const from = total === 0 ? 0 : offset + 1;
  const to = Math.min(offset + limit, total);
  return h('nav', { class: 'pager', 'aria-label': 'Pages' },
    h('button', { type: 'button', class: 'secondary', disabled: offset === 0, onclick: () => onOffset(Math.max(0, offset - limit)) }, '← Previous'),
    h('span', { role: 'status' }, `${num(from)}–${num(to)} of ${num(total)}`),
    h('button', { type: 'button', class: 'secondary', disabled: pagination.next_offset == null, onclick: () => onOffset(pagination.next_offset) }, 'Next →'));
}

// choices are a select's options, keeping a value the address applied that
// is not among them, so the control still shows what is applied.
export const choices = (opts, current) => (current && !opts.some(([v]) => v === current) ? [...opts, [current, words(current)]] : opts);

// filteredList is a list page's body: a page of path's list read with the
// address's filters f and shown by show(res), then a pager. A filter the
// API refuses is marked beside its control in the form filters too.
export function filteredList({ path, f, limit, filters, go, show }) {
  const body = h('div');
  load(body, async () => {
    let res;
    try {
      res = await get(path + query({ ...f, limit }));
    } catch (err) {
      if (err instanceof ApiError && err.fields.length) {
        showErrors(filters, filters.status, err);
        filters.status.replaceChildren(); // the list's own error box says why
      }
      throw err;
    }
    return [show(res), res.pagination.total > 0 && pager(res.pagination, (offset) => go({ ...f, offset: offset || '' }))];
  });
  return body;
}

// form builds a labelled form. fields: [{name, label, type ('text',
// 'email', 'password', 'number', 'textarea', 'select', 'checkbox', 'file',
// 'date'), options: [[value, label]], value, required, hint, placeholder,
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
      if (input.type === 'checkbox') values[name] = input.checked;
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

// dialog opens a modal with content; close() ends it.
export function dialog(title, build) {
  const id = uid('d');
  const d = h('dialog', { 'aria-labelledby': id, class: 'modal' });
  const close = () => { d.close(); d.remove(); };
  d.append(h('div', { class: 'modal-head' }, h('h2', { id }, title), h('button', { type: 'button', class: 'icon', 'aria-label': 'Close', onclick: close }, '×')),
    build(close));
  d.addEventListener('close', () => d.remove());
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
