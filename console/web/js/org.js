// Where the signed-in person acts: the organizations they may act in (GET
// /auth/me: memberships, and the clients their provider staff memberships
// reach), the header's switcher between them, and the banner every page
// shows while a provider's staff acts in one of its clients.

import { h, uid, disclosure } from './dom.js';

// places lists the organizations a person may act in, grouped: each
// provider first, then its clients by name; then any other organization.
// Each: {id, name, kind, role, via (the provider's name, for a client
// reached as its staff)}.
export function places(me) {
  const seen = new Set();
  const groups = [];
  const rest = { title: 'Other organizations', items: [] };
  const add = (list, item) => { if (!seen.has(item.id)) { seen.add(item.id); list.push(item); } };
  const ms = me.memberships || [];
  const byName = (a, b) => a.name.localeCompare(b.name);
  // A client the person belongs to acts with that role: listed as theirs.
  for (const m of ms.filter((m) => m.kind === 'client')) add(rest.items, { id: m.org_id, name: m.org_name, kind: m.kind, role: m.role });
  for (const p of ms.filter((m) => m.kind === 'provider')) {
    const g = { title: p.org_name, items: [] };
    add(g.items, { id: p.org_id, name: p.org_name, kind: 'provider', role: p.role });
    for (const c of (me.clients || []).filter((c) => c.provider_id === p.org_id).map((c) => ({ id: c.id, name: c.name })).sort(byName)) {
      add(g.items, { id: c.id, name: c.name, kind: 'client', via: p.org_name });
    }
    groups.push(g);
  }
  for (const m of ms) add(rest.items, { id: m.org_id, name: m.org_name, kind: m.kind, role: m.role });
  for (const c of me.clients || []) add(rest.items, { id: c.id, name: c.name, kind: 'client' });
  if (rest.items.length) groups.push(rest);
  return { groups, count: seen.size };
}

// staffOf: the providers where the person is an admin or technician (who
// work with clients).
export const staffOf = (me) => (me.memberships || []).filter((m) => m.kind === 'provider' && m.role !== 'member');

// actingVia is the provider's name while its staff acts in a client of
// it, else ''.
export function actingVia(me) {
  if (!me.acting_through) return '';
  const p = (me.memberships || []).find((m) => m.org_id === me.acting_through);
  return p ? p.org_name : 'your provider';
}

const kindWords = { provider: 'Provider', client: 'Client', standalone: 'Organization' };

// switcher is the header's button naming the organization acted in, and
// its panel of the others, each a button that switches to it (go(id)).
// Null when there is nowhere else to go.
export function switcher(me, go) {
  const { groups, count } = places(me);
  if (count < 2) return null;
  const panelId = uid('orgs');
  const via = actingVia(me);
  const kind = me.organization?.kind || '';
  const button = h('button', { type: 'button', class: 'org-button' + (via ? ' in-client' : ''), 'aria-expanded': 'false', 'aria-controls': panelId,
    title: 'Switch organization' },
  h('span', { class: 'sr-only' }, 'Organization: '),
  via ? h('span', { class: 'org-kind' }, 'Client') : null,
  h('span', { class: 'org-name' }, me.org),
  h('span', { class: 'sr-only' }, via ? `, client of ${via}. Switch organization` : '. Switch organization'),
  h('span', { class: 'org-caret', 'aria-hidden': 'true' }, '▾'));
  const heading = h('h2', { id: panelId + '-h', tabindex: '-1' }, 'Switch organization');
  const status = h('div', { 'aria-live': 'polite' });
  const lists = groups.map((g) => {
    const gid = uid('og');
    return h('div', { class: 'org-group' },
      h('h3', { id: gid }, g.title),
      h('ul', { 'aria-labelledby': gid }, g.items.map((o) => {
        const cur = o.id === me.org_id;
        const label = [h('span', { class: 'org-item-name' }, o.name),
          h('span', { class: 'small muted' }, [kindWords[o.kind] || o.kind, o.role, cur ? 'current' : ''].filter(Boolean).join(' · '))];
        if (cur) return h('li', { 'data-name': o.name.toLowerCase() }, h('span', { class: 'org-item current', 'aria-current': 'true' }, label));
        return h('li', { 'data-name': o.name.toLowerCase() }, h('button', { type: 'button', class: 'org-item', 'data-org': o.id, onclick: async (ev) => {
          const b = ev.currentTarget;
          b.disabled = true;
          status.replaceChildren(h('p', { class: 'small' }, `Switching to ${o.name}…`));
          try { await go(o.id); close(false); } catch (err) {
            b.disabled = false;
            status.replaceChildren(h('p', { class: 'error', role: 'alert' }, err.message));
          }
        } }, label));
      })));
  });
  // A long list gets a filter by name.
  const filter = count > 8 ? h('input', { type: 'search', class: 'org-filter', 'aria-label': 'Find an organization', placeholder: 'Find…', oninput: () => {
    const q = filter.value.trim().toLowerCase();
    for (const li of panel.querySelectorAll('li[data-name]')) li.hidden = !!q && !li.dataset.name.includes(q);
  } }) : null;
  const panel = h('div', { id: panelId, class: 'org-panel', role: 'region', 'aria-labelledby': heading.id, hidden: true },
    h('div', { class: 'bell-head' }, heading, h('button', { type: 'button', class: 'icon', 'aria-label': 'Close', onclick: () => close(true) }, '×')),
    h('p', { class: 'small muted' }, 'Signed in as ', h('strong', {}, me.name), ` (${me.email})`),
    filter, status, lists);
  const wrap = h('div', { class: 'org-switch', 'data-kind': kind }, button, panel);
  const panelCtl = disclosure(wrap, button, panel, () => (filter || heading).focus());
  const close = (refocus) => panelCtl.close(refocus);
  return wrap;
}

// banner says, on every page, that the person acts in a client of their
// provider, not in their own organization, with the way back.
export function banner(me, go) {
  const via = actingVia(me);
  if (!via) return null;
  const back = h('button', { type: 'button', class: 'secondary small', onclick: async () => {
    back.disabled = true;
    try { await go(me.acting_through); } catch { back.disabled = false; }
  } }, `Back to ${via}`);
  return h('div', { class: 'acting', role: 'note', 'aria-label': 'Organization acted in' },
    h('span', { class: 'acting-tag' }, 'Client'),
    h('p', {}, 'Acting in ', h('strong', { class: 'acting-org' }, me.org), ' — client of ', h('strong', {}, via),
      h('span', { class: 'acting-more' }, '. What you do here is done in this client and recorded on its audit log.')),
    back);
}
