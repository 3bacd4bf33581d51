// The lists people work in all day: a page of a list with sortable
// columns and numbered pages, both kept in the address (?page=3&sort=
// severity&order=asc), so reload, Back and a shared link show the same
// page. A column sorts on the server where the API sorts by it (across
// every page); otherwise within the page shown, and the list says so.

import { ApiError } from './api.js';
import { h, loading, empty, errorBox, pageNav, showErrors } from './dom.js';
import { severities } from './vocab.js';

// Sort keys: a column's sort(row) gives a number or text; these help.
export const severityRank = (s) => severities.length - severities.indexOf(String(s)); // critical highest
export const timeOf = (iso) => (iso ? Date.parse(iso) : null);
export const text = (s) => (s == null ? null : String(s).toLocaleLowerCase());

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

// sortRows orders a page's rows by a column; empty values go last either way.
export function sortRows(rows, col, order) {
  const dir = order === 'asc' ? 1 : -1;
  return rows.map((r, i) => [r, col.sort(r), i]).sort(([, a, i], [, b, j]) => {
    const na = a === null || a === undefined || a === '', nb = b === null || b === undefined || b === '';
    if (na || nb) return na && nb ? i - j : na ? 1 : -1;
    const c = typeof a === 'number' && typeof b === 'number' ? a - b : collator.compare(String(a), String(b));
    return c ? c * dir : i - j;
  }).map(([r]) => r);
}

// withParams is the current address with some parameters changed ('' or
// null removes one).
export function withParams(changes) {
  const q = new URLSearchParams(location.search);
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined || v === null || v === '') q.delete(k);
    else q.set(k, String(v));
  }
  const s = q.toString();
  return location.pathname + (s ? '?' + s : '');
}

const orderWords = { asc: 'ascending', desc: 'descending' };

// pagedList shows one page of a list. Options:
//   fetch({offset, limit, api}) → a list envelope ({data, pagination});
//     api holds the API's own sort parameters when the column sorts on
//     the server (merge them into the query).
//   columns: [{key, label, cell(row), class, sort(row) (sortable: the value
//     a page is sorted by), server(order) → API params, or null when the
//     API cannot sort that way, first ('asc' or 'desc': a first click's
//     order), head() (a header of its own: a select-all box)}]
//   sort: {key, order}: the API's own order, shown when the address names none.
//   caption, emptyMessage, limit, filters (a form whose fields the API may
//   name in a refusal), after(res, rows) (nodes after the table), rowAttrs(row),
//   shown(rows, res) (called once the rows are in the document).
// Returns {node, reload({quiet})}: quiet keeps the rows shown until the new
// ones arrive (an automatic refresh).
export function pagedList(opts) {
  const { fetch, columns, caption, limit = 50, filters, rowAttrs, after } = opts;
  // A second list on a page keeps its place under other names (prefix 'p': ppage, psort, porder).
  const P = { page: (opts.prefix || '') + 'page', sort: (opts.prefix || '') + 'sort', order: (opts.prefix || '') + 'order' };
  const node = h('div', { class: 'paged-list' });
  let seq = 0;

  const state = () => {
    const q = new URLSearchParams(location.search);
    const page = Math.max(1, Math.min(1e6, parseInt(q.get(P.page), 10) || 1));
    const key = q.get(P.sort);
    const col = columns.find((c) => c.sort && c.key === key);
    const sort = col ? key : opts.sort.key;
    const given = q.get(P.order);
    const order = col && (given === 'asc' || given === 'desc') ? given : col ? col.first || 'desc' : opts.sort.order;
    return { page, sort, order, col: columns.find((c) => c.key === sort) };
  };

  // go moves to another page or order of the list without leaving the
  // page: the address changes (Back returns), the rows are read again and
  // the focus stays on the control that was used.
  const go = (changes, focusKey) => {
    history.pushState(null, '', withParams(changes));
    reload({ focusKey });
  };

  async function reload({ quiet = false, focusKey = null } = {}) {
    const mine = ++seq;
    const st = state();
    const api = st.col && st.col.server ? st.col.server(st.order) : null;
    if (!quiet) node.replaceChildren(loading());
    let res;
    try {
      res = await fetch({ offset: (st.page - 1) * limit, limit, api: api || {} });
    } catch (err) {
      if (mine !== seq) return;
      if (filters && err instanceof ApiError && err.fields.length) {
        showErrors(filters, filters.status, err);
        filters.status.replaceChildren(); // the list's own error box says why
      }
      node.replaceChildren(errorBox(err));
      return;
    }
    if (mine !== seq || (!node.isConnected && quiet)) return;
    const rows = api || !st.col || !st.col.sort ? res.data : sortRows(res.data, st.col, st.order);
    const p = res.pagination;
    const parts = [];
    if (rows.length === 0 && p.total > 0) {
      parts.push(empty(`There is no page ${st.page} of this list: it has ${Math.max(1, Math.ceil(p.total / limit))}.`));
    } else if (rows.length === 0) {
      parts.push(empty(opts.emptyMessage));
    } else {
      parts.push(table(rows, st, !!api), sortNote(st, !!api, p));
    }
    parts.push(p.total > 0 ? pageNav(p, caption, (page, label, attrs) => h('a', { ...attrs, href: withParams({ [P.page]: page > 1 ? page : '' }),
      onclick: (ev) => { if (plainClick(ev)) { ev.preventDefault(); go({ [P.page]: page > 1 ? page : '' }, attrs['data-focus-key']); } } }, label)) : null);
    if (after) parts.push(after(res, rows));
    // A refresh must not take the focus from where the reader is: the same
    // control, or the one at the same place among the list's controls.
    const focusables = () => [...node.querySelectorAll('a[href], button, input, select, [tabindex]')];
    const active = quiet && node.contains(document.activeElement) ? document.activeElement : null;
    const had = active && active.getAttribute('data-focus-key');
    const at = active ? focusables().indexOf(active) : -1;
    node.replaceChildren(...parts.flat().filter(Boolean));
    if (opts.shown) opts.shown(rows, res);
    const want = focusKey || had;
    if (!want && at >= 0) focusables()[Math.min(at, focusables().length - 1)]?.focus({ preventScroll: true });
    if (want) {
      const el = node.querySelector(`[data-focus-key="${CSS.escape(want)}"]`) || node.querySelector('.page-current');
      if (el) el.focus({ preventScroll: !focusKey?.startsWith('page-') });
      if (focusKey?.startsWith('page-')) node.scrollIntoView({ block: 'start' });
    }
  }

  function table(rows, st) {
    const head = columns.map((c) => {
      if (c.head) return h('th', { scope: 'col', class: c.class }, c.head());
      if (!c.sort) return h('th', { scope: 'col', class: c.class }, c.label);
      const on = st.sort === c.key;
      const next = on ? (st.order === 'asc' ? 'desc' : 'asc') : c.first || 'desc';
      const where = c.server && c.server(next) ? 'all pages' : 'this page only';
      return h('th', { scope: 'col', class: c.class, 'aria-sort': on ? orderWords[st.order] : 'none' },
        h('button', { type: 'button', class: 'sort', 'data-focus-key': 'sort-' + c.key,
          title: `Sort by ${c.label.toLowerCase()}, ${orderWords[next]} (${where})`,
          onclick: () => {
            const natural = c.key === opts.sort.key && next === opts.sort.order; // the API's own order: a clean address
            go({ [P.sort]: natural ? '' : c.key, [P.order]: natural ? '' : next, [P.page]: '' }, 'sort-' + c.key);
          } },
        c.label, h('span', { class: 'sort-mark', 'aria-hidden': 'true' }, on ? (st.order === 'asc' ? ' ▲' : ' ▼') : ' ↕')));
    });
    return h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': caption },
      h('table', { class: 'sortable' },
        h('caption', { class: 'sr-only' }, caption, st.col ? `, sorted by ${st.col.label.toLowerCase()}, ${orderWords[st.order]}` : ''),
        h('thead', {}, h('tr', {}, head)),
        h('tbody', {}, rows.map((r) => h('tr', rowAttrs ? rowAttrs(r) : {}, columns.map((c) =>
          h('td', { class: c.class, 'data-label': c.label }, h('div', {}, c.cell(r)))))))));
  }

  // sortNote says how the rows are ordered, and when only this page is.
  function sortNote(st, server, p) {
    if (!st.col) return null;
    const how = `${st.col.label}, ${st.order === 'asc' ? st.col.ascWords || 'ascending' : st.col.descWords || 'descending'}`;
    if (server || p.total <= p.limit) return h('p', { class: 'muted small sort-note' }, `Sorted by ${how}.`);
    return h('p', { class: 'muted small sort-note' }, `Sorted by ${how} within this page only: the API cannot sort ${opts.what || 'this list'} this way, so the pages follow its own order (${opts.natural || 'newest first'}).`);
  }

  return { node, reload, state };
}

// plainClick: a click that should stay in this tab (not a new-tab click).
export const plainClick = (ev) => ev.button === 0 && !ev.metaKey && !ev.ctrlKey && !ev.shiftKey && !ev.altKey;
