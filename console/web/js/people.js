// Who did something, in words: the API names people and keys by id
// (usr_…, key_…); the console shows the member's name (or address), the
// API key's name, the agent's name, or Garrison, and an id only when
// nothing else is known about it.

import { get, members } from './api.js';
import { h } from './dom.js';

const agentNames = { 'msp-hunter': 'MSP Hunter', 'threat-researcher': 'Threat Researcher', 'tech-support': 'Tech Support',
  compliance: 'Compliance Auditor', 'account-manager': 'Account Manager', onboarding: 'Onboarding' };
export const agentName = (slug) => agentNames[slug] || slug;

let keysCache = null;
// keys maps the organization's API key ids to their keys: admins only
// (the list is theirs to read); others get an empty map without asking.
function keys(admin) {
  if (!admin) return Promise.resolve(new Map());
  if (!keysCache || Date.now() - keysCache.at > 60000) {
    const entry = { at: Date.now() };
    entry.p = get('/api-keys?limit=200').then((r) => new Map((r.data || []).map((k) => [k.id, k])), () => {
      if (keysCache === entry) keysCache = null;
      return new Map();
    });
    keysCache = entry;
  }
  return keysCache.p;
}

// people resolves to a namer: name(id) is text for a person, key, agent or
// Garrison; member(id) the member, when one. ctx gives who is signed in.
export async function people(ctx) {
  const [who, ks] = await Promise.all([members(), keys(ctx.can('admin'))]);
  const name = (id, { you = true } = {}) => {
    if (!id) return null;
    if (you && ctx.me && id === ctx.me.id) return `${ctx.me.name || ctx.me.email} (you)`;
    const m = who.get(id);
    if (m) return m.name || m.email;
    if (id === 'garrison') return 'Garrison';
    if (agentNames[id]) return `${agentNames[id]} agent`;
    if (id.startsWith('key_')) return ks.has(id) ? `API key “${ks.get(id).name}”` : 'an API key';
    if (id.startsWith('usr_')) return 'a former member';
    return id;
  };
  return { name, member: (id) => who.get(id) || null, members: [...who.values()], keys: [...ks.values()] };
}

// personNode shows a name, with the member's address on hover.
export function personNode(namer, id, empty = '—') {
  const n = namer.name(id);
  if (!n) return h('span', { class: 'muted' }, empty);
  const m = namer.member(id);
  return h('span', { title: m ? m.email : null }, n);
}

export function forgetKeys() { keysCache = null; }
