// Alert notifications (Settings, admins only): the contact points alerts
// reach, each tested on request with every receiver's answer in its row;
// the routing rules that send alerts to them; the delivery log.

import { get, post, patch, del, api, query } from '../api.js';
import { h, section, load, table, time, badge, form, notice, errorBox, dialog, copyButton, confirmAction, empty, words, Words, clip, num, choices, uid } from '../dom.js';
import { severities } from '../vocab.js';
import { withParams } from '../list.js';

const base = '/settings/notifications';
const views = { channels: ['Contact points', base, channelsView], rules: ['Routing rules', base + '/rules', rulesView],
  deliveries: ['Delivery log', base + '/deliveries', deliveriesView],
  suppressions: ['Suppressions', base + '/suppressions', suppressionsView] };

// Contact point kinds: [label, what is sent, the URL's label].
const kinds = {
  email: ['E-mail', ''],
  slack: ['Slack', 'Also Mattermost and Rocket.Chat.', 'Incoming webhook URL'],
  teams: ['Microsoft Teams', 'A workflow started by a webhook request.', 'Workflow URL'],
  webhook: ['Webhook', 'Signed JSON (Standard Webhooks).', 'Receiver URL'],
  pagerduty: ['PagerDuty', 'Events API v2; no URL: PagerDuty\'s own.', 'Events API URL (optional)'],
};
const kind = (k) => kinds[k]?.[0] || k;
const roles = [['admin', 'Admins'], ['technician', 'Technicians'], ['member', 'Members']];
const categories = ['malware', 'intrusion_attempt', 'reconnaissance', 'blocked_traffic', 'dns_anomaly', 'policy_violation', 'activity_burst',
  'sensor_silent', 'credential_expired', 'notification_failing'];
const eventTypes = ['threat_detected', 'blocked_connection', 'dns_anomaly', 'policy_violation'];
const said = (v) => words(v).replace(/\bdns\b/, 'DNS');
const label = (v) => said(v).replace(/^./, (c) => c.toUpperCase());

const channel = (id) => '/notification-channels/' + encodeURIComponent(id);
const rule = (id) => '/notification-rules/' + encodeURIComponent(id);

export async function render(ctx) {
  const [, , build] = views[ctx.view] || views.channels;
  const head = h('h1', {}, 'Alert notifications');
  if (!ctx.can('admin')) {
    return h('div', {}, head, h('p', {}, `Only the organization's admins choose where alerts are sent: ask an admin of ${ctx.me.org}.`));
  }
  return h('div', { class: 'alerting' }, head,
    h('nav', { class: 'tabs', 'aria-label': 'Alert notification sections' },
      Object.values(views).map(([name, href, b]) => h('a', { href, 'aria-current': b === build ? 'page' : null }, name))),
    await build(ctx));
}

// ---- Helpers ----

const host = (url) => { try { return new URL(url).host; } catch { return url; } };
const listOf = (s, sep = /,/) => s.split(sep).map((x) => x.trim()).filter(Boolean);
const none = (text = 'None') => h('span', { class: 'muted' }, text);

// button is a row's action, named with its row.
const button = (text, name, key, onclick) => h('button', { type: 'button', class: 'secondary small', 'data-focus-key': key, 'aria-label': `${text} “${name}”`, onclick }, text);

// refresh fills box again and gives the focus to the control of key.
const refresh = (box, build, key) => load(box, build, { quiet: !!key })
  .then(() => key && box.querySelector(`[data-focus-key="${CSS.escape(key)}"]`)?.focus());

// checks is a group of checkboxes in a form(), named as the API's field.
function checks(name, legend, options, chosen = [], hint) {
  const id = uid(name);
  const boxes = options.map(([value, text]) => h('input', { type: 'checkbox', id: uid(name), value, checked: chosen.includes(value) }));
  const box = h('fieldset', { class: 'field radios checks', 'data-field': name, 'aria-describedby': id },
    h('legend', {}, legend), hint ? h('p', { class: 'hint' }, hint) : null,
    options.length ? h('ul', { class: 'plain' }, boxes.map((b, i) => h('li', { class: 'field check' }, b, h('label', { for: b.id }, options[i][1]))))
      : h('p', { class: 'muted small' }, 'None yet.'),
    h('p', { class: 'field-error', id }));
  box.values = () => boxes.filter((b) => b.checked).map((b) => b.value);
  return box;
}

// group puts a form's fields in a fieldset named as the API's object.
function group(name, legend, hint, fields, more) {
  const fs = h('fieldset', { class: 'field radios group', 'data-field': name }, h('legend', {}, legend), h('p', { class: 'hint' }, hint));
  fields[0].before(fs);
  fs.append(h('div', { class: 'group-row' }, fields), more || '');
}

// ---- Contact points ----

// answers are the last test's, per receiver.
function answers(t) {
  if (!t) return null;
  if (t instanceof Error) return h('p', { class: 'test-results failing' }, t.message);
  if (!t.length) return h('p', { class: 'test-results failing' }, 'Nobody to send to.');
  return h('ul', { class: 'plain test-results', 'aria-label': 'Test answers' }, t.map((r) => h('li', {},
    h('strong', { class: r.delivered ? 'ok' : 'failing' }, r.delivered ? '✓ Delivered' : '✗ Not delivered'),
    ` · ${r.receiver} · ${r.status === 250 ? '250 (mail taken)' : r.status ? 'HTTP ' + r.status : 'no answer'}`,
    r.answer ? h('div', { class: 'muted' }, `“${clip(r.answer, 80)}”`) : null,
    r.error ? h('div', { class: 'failing' }, r.error) : null)));
}

// showSecret shows the signing secret the API gives once.
function showSecret(name, secret) {
  dialog(`Signing secret of “${name}”`, (close) => {
    const id = uid('secret');
    const code = (s) => h('code', {}, s);
    return h('div', {},
      h('p', {}, `“${name}” signs its deliveries with it from now on. Give it to the receiver.`),
      h('div', { class: 'field' }, h('label', { for: id }, 'Signing secret'),
        h('input', { id, readonly: true, value: secret, class: 'mono', spellcheck: 'false', onfocus: (e) => e.target.select() })),
      h('p', { class: 'error' }, h('strong', {}, 'Copy it now: '), 'it will not be shown again. If it is lost, rotate it.'),
      h('p', { class: 'small' }, 'To verify a delivery (Standard Webhooks): ', code('webhook-signature'), ' is ', code('v1,'),
        ' and the base64 HMAC-SHA256 of ', code('webhook-id.webhook-timestamp.body'), ', keyed with the base64-decoded part of the secret after ',
        code('whsec_'), '. Compare in constant time; refuse old timestamps.'),
      h('div', { class: 'actions' }, copyButton(secret, 'Copy secret'), h('button', { type: 'button', class: 'secondary', onclick: close }, 'Done')));
  });
}

// addChannel's fields follow the kind chosen.
function addChannel(done) {
  const f = form({
    submit: 'Add contact point',
    fields: [
      { name: 'name', label: 'Name', required: true, maxlength: 100, autocomplete: 'off' },
      { name: 'kind', label: 'Kind', type: 'select', options: Object.entries(kinds).map(([k, [l]]) => [k, l]), hint: ' ' },
      { name: 'url', label: ' ', type: 'url', autocomplete: 'off' },
      { name: 'addresses', label: 'E-mail addresses', type: 'textarea', rows: 3, hint: 'Separated by commas or lines; at most 20.' },
      { name: 'routing_key', label: 'Routing key', autocomplete: 'off', hint: 'The service\'s 32-character integration key, never shown again.' },
    ],
    onSubmit: async (v) => {
      const body = { name: v.name, kind: v.kind };
      if (v.kind === 'email') Object.assign(body, { addresses: listOf(v.addresses, /[\s,;]+/), roles: roleBox.values() });
      else if (v.url) body.url = v.url.trim();
      if (v.kind === 'pagerduty') body.routing_key = v.routing_key.trim();
      const c = (await post('/notification-channels', body)).data;
      f.reset();
      follow();
      await done(c);
    },
  });
  const roleBox = checks('roles', 'Members with these roles', roles, [],
    'Those with a confirmed address.');
  const at = (n) => f.querySelector(`[data-field="${n}"]`);
  at('addresses').after(roleBox);
  const follow = () => {
    const k = f.inputs.kind.value;
    at('url').hidden = k === 'email';
    at('addresses').hidden = roleBox.hidden = k !== 'email';
    at('routing_key').hidden = k !== 'pagerduty';
    at('url').querySelector('label').textContent = kinds[k][2] || '';
    at('kind').querySelector('.hint').textContent = kinds[k][1];
  };
  f.inputs.kind.addEventListener('change', follow);
  follow();
  return f;
}

function channelsView() {
  const msg = h('div', { 'aria-live': 'polite' });
  const box = h('div');
  const tests = new Map(); // id → answers
  const build = async () => table([
    { label: 'Name', cell: (c) => h('strong', {}, c.name) },
    { label: 'Kind', cell: (c) => kind(c.kind) },
    { label: 'Sends to', cell: (c) => (c.kind === 'email' ? [...c.roles.map((r) => `all ${r}s`), ...c.addresses].join(', ')
      : c.url ? host(c.url) : 'events.pagerduty.com') }, // the rest of a chat URL is a secret
    { label: 'Status', cell: (c) => (c.failing_since ? h('span', { class: 'failing' }, 'Failing since ', time(c.failing_since))
      : c.last_success_at ? ['Last delivered ', time(c.last_success_at)] : none('No alert delivered yet')) },
    { label: 'Actions', class: 'row-actions', cell: (c) => [h('div', { class: 'actions' },
      button('Test', c.name, 'test-' + c.id, (e) => test(c, e.currentTarget)),
      c.kind === 'webhook' ? button('Rotate secret', c.name, 'rotate-' + c.id, () => rotate(c)) : null,
      button('Delete', c.name, null, () => remove(c))), answers(tests.get(c.id))] },
  ], (await get('/notification-channels')).data, 'No contact points yet.', 'Contact point list');
  const show = (key) => refresh(box, build, key);

  async function test(c, b) {
    b.disabled = true;
    b.textContent = 'Testing…';
    let t;
    try { t = (await post(channel(c.id) + '/test', {})).data.results; } catch (err) { t = err; }
    tests.set(c.id, t);
    msg.replaceChildren(t.length && t.every?.((r) => r.delivered) ? notice(`Test of “${c.name}”: delivered.`)
      : errorBox(t instanceof Error ? t : new Error(`Test of “${c.name}”: not delivered everywhere; see its row.`)));
    await show('test-' + c.id);
  }
  const rotate = (c) => confirmAction(`Rotate the secret of “${c.name}”`,
    'The current secret stops verifying at once: the receiver needs the new one.', 'Rotate secret', async () => {
      const r = (await patch(channel(c.id), { name: c.name, url: c.url, rotate_secret: true })).data;
      setTimeout(() => showSecret(r.name, r.secret)); // once this dialog has closed
    });
  const remove = (c) => confirmAction(`Delete “${c.name}”`,
    `Delete “${c.name}”? A contact point a rule names cannot be deleted.`, 'Delete contact point', async () => {
      await del(channel(c.id));
      msg.replaceChildren(notice(`“${c.name}” was deleted.`));
      await show();
    });

  show();
  return h('div', {},
    h('p', { class: 'muted' }, 'A routing rule names the contact points an alert reaches. The status follows alerts delivered, not tests.'),
    msg,
    section('Contact points', box),
    section('Add a contact point', addChannel(async (c) => {
      msg.replaceChildren(notice(`“${c.name}” was added.`));
      await show('test-' + c.id);
      if (c.secret) showSecret(c.name, c.secret);
    })));
}

// ---- Routing rules ----

// ruleForm adds a rule, or replaces one (r) whole (PUT): what it does not
// show (a provider's clients) is sent back as it was.
function ruleForm(r, channels, done, cancel) {
  const q = r?.quiet_hours || {}, e = r?.escalation || { after_minutes: 15, max: 3, channels: [] };
  const f = form({
    submit: r ? 'Save rule' : 'Add rule', cancel,
    fields: [
      { name: 'name', label: 'Name', required: true, maxlength: 100, value: r?.name, autocomplete: 'off' },
      { name: 'enabled', label: 'Enabled', type: 'checkbox', value: r ? r.enabled : true },
      { name: 'min_severity', label: 'Minimum severity', type: 'select', value: r?.min_severity || 'high',
        options: severities.map((s) => [s, Words(s) + (s === 'critical' ? ' only' : ' and above')]) },
      { name: 'assets', label: 'Assets', value: r?.assets.join(', '), hint: 'Separated by commas; empty: any.' },
      { name: 'sources', label: 'Sources', value: r?.sources.join(', '), hint: 'The events\' source; as above.' },
      { name: 'quiet_start', label: 'From', type: 'time', value: q.start },
      { name: 'quiet_end', label: 'Until', type: 'time', value: q.end },
      { name: 'quiet_zone', label: 'Time zone', value: q.timezone, placeholder: 'UTC', autocomplete: 'off' },
      { name: 'group_seconds', label: 'Group alerts within (seconds)', type: 'number', min: 0, max: 86400, value: r ? r.group_seconds : 60,
        hint: '0: one message per alert.' },
      { name: 'after_minutes', label: 'After (minutes)', type: 'number', min: 1, max: 1440, value: e.after_minutes },
      { name: 'max', label: 'At most (times)', type: 'number', min: 1, max: 10, value: e.max },
    ],
    onSubmit: async (v) => {
      const quiet = v.quiet_start || v.quiet_end || v.quiet_zone;
      const body = { name: v.name, enabled: v.enabled, min_severity: v.min_severity, categories: cats.values(), event_types: types.values(),
        assets: listOf(v.assets), sources: listOf(v.sources), channels: chans.values(), clients: r?.clients || [], overrides_provider: !!r?.overrides_provider,
        quiet_hours: quiet ? { start: v.quiet_start, end: v.quiet_end, timezone: v.quiet_zone.trim() || 'UTC' } : null,
        group_seconds: Number(v.group_seconds), escalation: { after_minutes: Number(v.after_minutes), max: Number(v.max), channels: esc.values() } };
      await done(r ? (await api('PUT', rule(r.id), body)).data : (await post('/notification-rules', body)).data);
    },
  });
  const opts = channels.map((c) => [c.id, `${c.name} (${kind(c.kind)})`]);
  const cats = checks('categories', 'Alert categories', categories.map((c) => [c, label(c)]), r?.categories, 'None checked: any.');
  const types = checks('event_types', 'Type of the first event', eventTypes.map((t) => [t, label(t)]), r?.event_types, 'None checked: any.');
  const chans = checks('channels', 'Send to', opts, r?.channels);
  const esc = checks('escalation_channels', 'Escalate to', opts, e.channels);
  const at = (n) => f.querySelector(`[data-field="${n}"]`);
  at('min_severity').after(cats, types);
  at('sources').after(chans);
  group('quiet_hours', 'Quiet hours', 'Alerts below critical wait for their end; may cross midnight. Zone: IANA, UTC if empty.',
    ['quiet_start', 'quiet_end', 'quiet_zone'].map(at));
  group('escalation', 'Escalation', 'Critical alerts nobody acknowledges in time go to these, again after each period.',
    ['after_minutes', 'max'].map(at), esc);
  return f;
}

async function rulesView(ctx) {
  const msg = h('div', { 'aria-live': 'polite' });
  const box = h('div'), addBox = h('div');
  const clients = new Map((ctx.me.clients || []).map((c) => [c.id, c.name]));
  let channels = [];
  const build = async () => {
    const [rules, chs] = await Promise.all([get('/notification-rules'), get('/notification-channels')]);
    channels = chs.data;
    const byId = new Map(channels.map((c) => [c.id, c.name]));
    const names = (ids) => ids.map((id) => byId.get(id) || id).join(', ');
    const conditions = (r) => {
      const parts = [['Categories', r.categories, said], ['First event', r.event_types, said], ['Assets', r.assets], ['Sources', r.sources],
        ['Clients', r.clients, (id) => clients.get(id) || id]].filter(([, v]) => v.length);
      return parts.length ? parts.map(([k, v, say]) => h('div', { class: 'small' }, `${k}: ${v.map(say || String).join(', ')}`)) : none('Any alert');
    };
    return table([
      { label: 'Name', cell: (r) => h('strong', {}, r.name) },
      { label: 'Enabled', cell: (r) => badge(r.enabled ? 'enabled' : 'disabled') },
      { label: 'Severity', cell: (r) => [badge(r.min_severity), r.min_severity === 'critical' ? ' only' : ' and above'] },
      { label: 'Conditions', cell: conditions },
      { label: 'Sends to', cell: (r) => names(r.channels) },
      { label: 'Quiet hours', cell: (r) => (r.quiet_hours ? `${r.quiet_hours.start}–${r.quiet_hours.end} ${r.quiet_hours.timezone}` : none()) },
      { label: 'Grouping', cell: (r) => (r.group_seconds ? `Within ${num(r.group_seconds)} s` : none('Each alert alone')) },
      { label: 'Escalation', cell: ({ escalation: e }) => (e.channels.length ? `After ${e.after_minutes} min, at most ${e.max} times: ${names(e.channels)}` : none()) },
      { label: 'Actions', cell: (r) => h('div', { class: 'actions' }, button('Edit', r.name, 'edit-' + r.id, () => edit(r)), button('Delete', r.name, null, () => remove(r))) },
    ], rules.data, 'No routing rules: no alert notifies anyone.', 'Routing rule list');
  };
  // The list shows the change before it is announced.
  const saved = async (r, how) => {
    await refresh(box, build, 'edit-' + r.id);
    msg.replaceChildren(notice(`“${r.name}” was ${how}.`));
  };
  const edit = (r) => dialog(`Edit “${r.name}”`, (close) => h('div', { class: 'alerting' },
    ruleForm(r, channels, async (s) => { close(); await saved(s, 'saved'); }, close)));
  const remove = (r) => confirmAction(`Delete “${r.name}”`, `Delete the rule “${r.name}”? Its escalations stop.`, 'Delete rule', async () => {
    await del(rule(r.id));
    msg.replaceChildren(notice(`“${r.name}” was deleted.`));
    await refresh(box, build);
  });
  const fresh = () => addBox.replaceChildren(ruleForm(null, channels, async (s) => { await saved(s, 'added'); fresh(); }));
  await refresh(box, build);
  fresh();
  return h('div', {},
    h('p', { class: 'muted' }, 'An enabled rule whose conditions an opened alert meets notifies its contact points; an empty condition holds for any.'),
    msg, section('Routing rules', box), section('Add a rule', addBox));
}

// ---- Suppressions ----

const matchFields = [['signature', 'Signature'], ['asset', 'Asset'], ['indicator', 'Indicator'], ['source', 'Source']];

async function suppressionsView() {
  const msg = h('div', { 'aria-live': 'polite' });
  const box = h('div');
  const build = async () => {
    const res = await get('/alert-suppressions?limit=200');
    const now = Date.now();
    const state = (s) => (s.active ? badge('active') : s.ended_at ? ['Ended ', time(s.ended_at)] : ['Expired ', time(s.expires_at)]);
    return table([
      { label: 'Mutes', cell: (s) => matchFields.filter(([k]) => s[k]).map(([k, l]) => h('div', { class: 'small' }, `${l}: ${s[k]}`)) },
      { label: 'Reason', cell: (s) => s.reason },
      { label: 'Until', cell: (s) => (s.active ? time(s.expires_at) : state(s)) },
      { label: 'Status', cell: (s) => (s.active ? badge('active') : none(s.ended_at ? 'Ended' : 'Expired')) },
      { label: 'Events kept from alerting', cell: (s) => num(s.suppressed_events) },
      { label: 'Actions', cell: (s) => (s.active && Date.parse(s.expires_at) > now
        ? button('End now', matchFields.map(([k]) => s[k]).filter(Boolean).join(' '), 'end-' + s.id, () => confirmAction('End the suppression',
          `End it now? Matching events open alerts again. Reason given: ${s.reason}`, 'End now', async () => {
            await del('/alert-suppressions/' + encodeURIComponent(s.id));
            msg.replaceChildren(notice('The suppression was ended.'));
            await refresh(box, build);
          })) : null) },
    ], res.data, 'No suppressions: every matching event opens its alert.', 'Suppression list');
  };
  const add = form({
    submit: 'Suppress',
    fields: [
      ...matchFields.map(([name, l]) => ({ name, label: l, maxlength: 500, autocomplete: 'off' })),
      { name: 'duration', label: 'For', type: 'select', value: '8h',
        options: [['1h', '1 hour'], ['8h', '8 hours'], ['1d', '1 day'], ['7d', '7 days'], ['30d', '30 days']] },
      { name: 'reason', label: 'Reason', required: true, maxlength: 500 },
    ],
    onSubmit: async (v) => {
      const body = { duration: v.duration, reason: v.reason };
      for (const [k] of matchFields) if (v[k].trim()) body[k] = v[k].trim();
      await post('/alert-suppressions', body);
      await refresh(box, build);
      msg.replaceChildren(notice('Suppressed: matching events are still stored and counted, and open no alert.'));
      add.reset();
    },
  });
  await refresh(box, build);
  return h('div', {},
    h('p', { class: 'muted' }, 'Mute a noisy signature, asset, indicator or source for a while; every field given must match. It ends by itself.'),
    msg, section('Suppressions', box), section('Suppress alerts', add));
}

// ---- Delivery log ----

const LIMIT = 50;

async function deliveriesView(ctx) {
  const q = ctx.query;
  const f = { status: q.get('status') || '', channel_id: q.get('channel_id') || '' };
  const offset = Math.max(0, parseInt(q.get('offset'), 10) || 0);
  const [chs, rules] = await Promise.all(['/notification-channels', '/notification-rules'].map((p) => get(p).then((r) => r.data, () => [])));
  const ruleName = new Map(rules.map((r) => [r.id, r.name]));
  const filters = form({
    className: 'inline toolbar', submit: 'Apply',
    fields: [
      { name: 'status', label: 'Status', type: 'select', value: f.status, options: choices([['', 'Any'], ...['pending', 'delivered', 'failed'].map((s) => [s, Words(s)])], f.status) },
      { name: 'channel_id', label: 'Contact point', type: 'select', value: f.channel_id, options: choices([['', 'Any'], ...chs.map((c) => [c.id, c.name])], f.channel_id) },
    ],
    onSubmit: async (v) => ctx.navigate(withParams({ ...v, offset: '' })),
  });
  filters.setAttribute('role', 'search');
  filters.setAttribute('aria-label', 'Filter deliveries');
  const filtered = f.status || f.channel_id;

  const box = h('div');
  load(box, async () => {
    const { data: rows, pagination: p } = await get('/notifications/deliveries' + query({ ...f, limit: LIMIT, offset: offset || null }));
    // The pages follow the API's next_offset: a page may end early.
    const step = (text, off) => (off == null ? h('span', { class: 'page-off', 'aria-disabled': 'true' }, text) : h('a', { href: withParams({ offset: off || '' }) }, text));
    const pager = p.offset || p.next_offset != null
      ? h('nav', { class: 'pager', 'aria-label': 'Pages of the delivery log' },
        h('span', { class: 'page-range' }, rows.length ? `${num(p.offset + 1)}–${num(p.offset + rows.length)} of ${num(p.total)}` : `${num(p.total)} in all`),
        h('span', { class: 'page-steps' }, step('« Newest', p.offset ? 0 : null), step('‹ Newer', p.offset ? Math.max(0, p.offset - LIMIT) : null), step('Older ›', p.next_offset)))
      : h('p', { class: 'muted small pager-total' }, `${num(p.total)} in all`);
    if (!rows.length) return [empty(filtered ? 'No deliveries match these filters.' : 'Nothing was sent yet.'), pager];
    return [table([
      { label: 'When', cell: (d) => time(d.created_at) },
      { label: 'Contact point', class: 'c-wide', cell: (d) => [h('a', { href: withParams({ channel_id: d.channel_id, offset: '' }) }, d.channel),
        h('div', { class: 'small muted' }, kind(d.kind))] },
      rows.some((d) => d.recipient) ? { label: 'Recipient', cell: (d) => d.recipient || '—' } : null,
      { label: 'Event', class: 'c-wide', cell: (d) => [d.event === 'trigger' ? 'Alert opened' : Words(d.event), d.rule_id ? h('div', { class: 'small muted' }, 'Rule: ' + (ruleName.get(d.rule_id) || 'deleted')) : null] },
      { label: 'Alert', cell: (d) => (d.alert_id ? h('a', { class: 'nowrap', href: '/alerts/' + encodeURIComponent(d.alert_id), title: d.alert_id }, 'Alert …' + d.alert_id.slice(-6)) : '—') },
      { label: 'Status', cell: (d) => badge(d.status) },
      { label: 'Attempts', class: 'num', cell: (d) => num(d.attempts) },
      { label: 'Last status', class: 'num', cell: (d) => d.last_status ?? '—' },
      { label: 'Last error', class: 'c-error', cell: (d) => (d.last_error ? h('span', { class: 'small', title: d.last_error }, clip(d.last_error, 80)) : '—') },
      { label: 'Next attempt', cell: (d) => time(d.next_attempt_at) },
    ].filter(Boolean), rows, '', 'Delivery log'), pager];
  });
  return h('div', {},
    h('p', { class: 'muted' }, 'Every message to a contact point, newest first; failed attempts are retried for 24 hours.'),
    filters, box);
}
