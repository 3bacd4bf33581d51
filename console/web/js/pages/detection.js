// Detection rules: SigmaHQ's Windows rules shipped inside Garrison and the
// organization's own, run on every Windows event. Admins turn sets and
// single rules on or off (a provider's choices reach its clients) and add
// rules of their own, the YAML checked with the line at fault named. Every
// rule is shown with its author and a link to it, as the Detection Rule
// License asks.

import { get, put, post, del, query, ApiError } from '../api.js';
import { h, load, badge, form, section, dl, notice, num, words, choices, notFound, confirmAction, errorBox, table } from '../dom.js';
import { pagedList, withParams, text } from '../list.js';

const LIMIT = 50;
const levels = ['informational', 'low', 'medium', 'high', 'critical'];
const levelRank = Object.fromEntries(levels.map((l, i) => [l, i]));

export async function render(ctx) {
  return ctx.view === 'rule' ? rule(ctx) : index(ctx);
}

// levelBadge shows a Sigma level with the severity it opens alerts at.
const levelBadge = (level) => badge(level === 'informational' ? 'info' : level);

// Who decides whether a rule or set runs.
const byWords = {
  rule: 'your choice of this rule',
  set: 'your choice of its set',
  provider_rule: "your provider's choice of this rule",
  provider_set: "your provider's choice of the set",
  default: 'the default: every rule runs',
};

function stateNode(x) {
  return [badge(x.enabled ? 'on' : 'off', x.enabled ? 'ok' : 'muted'), h('div', { class: 'small muted' }, byWords[x.enabled_by] || x.enabled_by)];
}

function index(ctx) {
  const admin = ctx.can('admin');
  const q = ctx.query;
  const f = { set: q.get('set') || '', level: q.get('level') || '', origin: q.get('origin') || '', enabled: q.get('enabled') || '', q: q.get('q') || '' };
  const message = h('div', { 'aria-live': 'polite' });
  const setsBox = h('div');
  let setNames = [];

  async function showSets() {
    const sets = (await get('/detection-rule-sets')).data;
    setNames = sets.map((s) => s.name);
    setsBox.replaceChildren(table([
      { label: 'Set', cell: (s) => h('a', { href: withParams({ set: s.name, page: '' }), class: 'mono' }, s.name) },
      { label: 'Rules', class: 'num', cell: (s) => num(s.rules) },
      { label: 'Runs', cell: stateNode },
      admin ? { label: 'Change', cell: (s) => choiceButtons('/detection-rule-sets/' + encodeURIComponent(s.name), s, `the set ${s.name}`, async (t) => {
        await showSets();
        rules.reload({ quiet: true });
        message.replaceChildren(notice(t));
      }) } : null,
    ].filter(Boolean), sets, 'No rule sets.', 'Rule sets'));
  }

  const filters = form({
    className: 'inline toolbar',
    submit: 'Apply',
    fields: [
      { name: 'q', label: 'Search', value: f.q, placeholder: 'Title, id, author or tag' },
      { name: 'level', label: 'Level', type: 'select', value: f.level, options: choices([['', 'Any'], ...levels.map((l) => [l, words(l)])], f.level) },
      { name: 'origin', label: 'Origin', type: 'select', value: f.origin, options: choices([['', 'Any'], ['sigmahq', 'SigmaHQ'], ['custom', 'Your own']], f.origin) },
      { name: 'enabled', label: 'Runs', type: 'select', value: f.enabled, options: choices([['', 'Either'], ['true', 'On'], ['false', 'Off']], f.enabled) },
    ],
    onSubmit: async (v) => ctx.navigate(withParams({ ...v, page: '' })),
  });
  filters.setAttribute('role', 'search');
  filters.setAttribute('aria-label', 'Filter rules');

  const rules = pagedList({
    caption: 'Detection rules', limit: LIMIT, filters, what: 'rules', natural: 'by set, then title',
    sort: { key: 'natural', order: 'asc' },
    columns: [
      { key: 'title', label: 'Rule', first: 'asc', sort: (r) => text(r.title),
        cell: (r) => [h('a', { href: '/detection/rules/' + encodeURIComponent(r.id) }, r.title),
          h('div', { class: 'small muted' }, 'by ', r.author || 'an unnamed author')] },
      { key: 'level', label: 'Level', sort: (r) => levelRank[r.level], cell: (r) => levelBadge(r.level), descWords: 'most severe first', ascWords: 'least severe first' },
      { key: 'set', label: 'Set', first: 'asc', sort: (r) => r.set, cell: (r) => h('span', { class: 'mono small' }, r.set) },
      { key: 'enabled', label: 'Runs', sort: (r) => (r.enabled ? 1 : 0), cell: stateNode },
    ],
    emptyMessage: 'No rules match these filters.',
    fetch: ({ offset, limit }) => get('/detection-rules' + query({ ...f, limit, offset })),
  });
  rules.node.classList.add('wide-60');

  const page = h('div', {},
    h('h1', {}, 'Detection rules'),
    h('p', {}, 'Every Windows event is checked against these rules; a match opens an alert at the rule\'s level, naming the rule and its author. ',
      'The shipped rules are ', h('a', { href: 'https://github.com/SigmaHQ/sigma', rel: 'noopener noreferrer', target: '_blank' }, 'SigmaHQ\'s'),
      ', under the ', h('a', { href: 'https://github.com/SigmaHQ/Detection-Rule-License', rel: 'noopener noreferrer', target: '_blank' }, 'Detection Rule License 1.1'), '.'),
    message,
    section('Rule sets', h('p', { class: 'small muted' }, 'A choice of a single rule wins over its set\'s; your choices win over your provider\'s.'), setsBox),
    admin ? section('Add a rule of your own', addRule(ctx)) : null,
    section('Rules', filters, (f.set || f.level || f.origin || f.enabled || f.q) ? h('p', { class: 'small' }, h('a', { href: '/detection' }, 'Clear the filters')) : null,
      f.set ? h('p', { class: 'small' }, 'In the set ', h('span', { class: 'mono' }, f.set), '.') : null,
      rules.node));
  load(setsBox, async () => { await showSets(); return [...setsBox.childNodes]; });
  rules.reload();
  return page;
}

// choiceButtons turn a set or a rule on or off, or forget the choice so
// that the provider's or the default applies.
function choiceButtons(path, x, what, done) {
  const box = h('div', { class: 'actions small-actions' });
  const choose = (enabled, label) => h('button', { type: 'button', class: 'secondary small', onclick: async (ev) => {
    ev.target.disabled = true;
    try {
      await put(path, { enabled });
      await done(enabled === null ? `${what}: your choice is forgotten.` : `${what} is now ${enabled ? 'on' : 'off'}.`);
    } catch (err) {
      box.append(errorBox(err));
      ev.target.disabled = false;
    }
  } }, label);
  box.append(x.enabled ? choose(false, 'Turn off') : choose(true, 'Turn on'));
  if (x.enabled_by === 'rule' || x.enabled_by === 'set') box.append(choose(null, 'Forget my choice'));
  return box;
}

// selectLine selects a line of a textarea, to show where a refusal points.
function selectLine(area, line) {
  const lines = area.value.split('\n');
  if (line < 1 || line > lines.length) return;
  const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
  area.focus();
  area.setSelectionRange(start, start + lines[line - 1].length);
}

function addRule(ctx) {
  const f = form({
    submit: 'Check and add the rule',
    fields: [{ name: 'yaml', label: 'Sigma rule (YAML)', type: 'textarea', rows: 14, required: true,
      hint: 'One rule with an id (a UUID), a title and a level. A rule Garrison cannot read is refused with the line at fault.' }],
    onSubmit: async (v) => {
      let r;
      try {
        r = (await post('/detection-rules', { yaml: v.yaml })).data;
      } catch (err) {
        if (err instanceof ApiError && err.fields.includes('yaml')) {
          // The message names the line; the field shows it and the line is selected.
          setTimeout(() => {
            f.querySelector('[data-field="yaml"] .field-error').textContent = err.message.replace(/^Invalid (request|rule): /, '');
            if (err.line) selectLine(f.inputs.yaml, err.line);
          });
        }
        throw err;
      }
      ctx.navigate('/detection/rules/' + encodeURIComponent(r.id));
    },
  });
  f.inputs.yaml.classList.add('mono');
  f.inputs.yaml.spellcheck = false;
  return f;
}

async function rule(ctx) {
  const page = h('div');
  const path = '/detection-rules/' + encodeURIComponent(ctx.params.id);
  async function show(message) {
    let r;
    try {
      r = (await get(path)).data;
    } catch (err) {
      return notFound(err, 'Detection rule', 'There is no such rule for your organization.', '/detection', 'Back to the rules');
    }
    ctx.setTitle(r.title);
    const redraw = async (m) => page.replaceChildren(...[await show(m)].flat().filter(Boolean));
    const own = r.origin === 'custom' && r.owner_org_id === ctx.me.organization?.id;
    return [
      h('p', { class: 'small' }, h('a', { href: '/detection' }, '← All rules')),
      h('h1', {}, r.title, ' ', levelBadge(r.level)),
      message ? notice(message) : null,
      h('div', { class: 'grid wide' },
        section('Rule', dl([
          ['Author', r.author || null],
          ['Published', r.link ? h('a', { href: r.link, rel: 'noopener noreferrer', target: '_blank' }, 'SigmaHQ/sigma') : 'Your organization\'s own rule'],
          ['Licence', r.license || null],
          ['Id', h('span', { class: 'mono' }, r.id)],
          ['Level', levelBadge(r.level)],
          ['Status', r.status || null],
          ['Set', h('a', { href: '/detection?set=' + encodeURIComponent(r.set), class: 'mono' }, r.set)],
          ['Reads', h('span', { class: 'mono' }, Object.entries(r.logsource).map(([k, v]) => `${k}: ${v}`).join(', '))],
          ['ATT&CK', r.tags.length ? h('ul', { class: 'tags' }, r.tags.map((t) => h('li', { class: 'mono' }, t.replace(/^attack\./, '')))) : null],
        ])),
        section('Runs', dl([['State', stateNode(r)]]),
          ctx.can('admin') ? choiceButtons(path, r, 'This rule', redraw) : null,
          own && ctx.can('admin') ? h('p', {}, h('button', { type: 'button', class: 'danger', onclick: () => confirmAction('Delete this rule?',
            'Alerts it opened stay; it stops running on new events.', 'Delete the rule', async () => {
              await del(path);
              ctx.navigate('/detection');
            }) }, 'Delete the rule')) : null)),
      r.description ? section('What it detects', h('p', {}, r.description)) : null,
      r.falsepositives.length ? section('May also fire on', h('ul', {}, r.falsepositives.map((x) => h('li', {}, x)))) : null,
      r.references.length ? section('References', h('ul', { class: 'small' }, r.references.map((x) => h('li', {}, /^https?:\/\//.test(x) ? h('a', { href: x, rel: 'noopener noreferrer', target: '_blank' }, x) : x)))) : null,
      section('YAML', h('pre', { class: 'code', tabindex: '0', 'aria-label': 'The rule as YAML' }, r.yaml)),
    ];
  }
  await load(page, () => show());
  return page;
}
