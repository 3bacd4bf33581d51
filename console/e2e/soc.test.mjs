// The console a SOC works in all day, in a real browser over the demo
// organization and 120 more alerts: sortable columns and numbered pages
// kept in the address, bulk resolution (with its disposition) and
// assignment, acknowledging and assigning one alert, the time range and
// the automatic refresh, the notifications bell on every page, and charts
// drawn at their card's width. Every page is watched for script errors,
// console errors and failed or refused requests.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSMTP } from './smtp.mjs';
import { startGarrison } from './server.mjs';
import { launch, watch } from './browser.mjs';

let smtp, server, browser, token, password, me, key;

async function api(method, p, body, auth = token) {
  const r = await server.request(method, p, { token: auth, body });
  assert.ok(r.status < 300, `${method} ${p}: ${r.status} ${r.text}`);
  return r.body;
}

before(async () => {
  smtp = await startSMTP();
  server = await startGarrison({ smtp, demo: true });
  password = server.log().match(/password: (\S+)/)[1];
  token = (await api('POST', '/api/auth/login', { email: 'demo@garrison.example', password })).token;
  me = (await api('GET', '/api/auth/me')).data;
  key = (await api('POST', '/api/api-keys', { name: 'soc sensor', scope: 'write' })).data.key;
  // 120 critical events on 120 hosts: 120 open alerts, so the list has
  // three pages and its rows differ by asset and time.
  const now = Date.now();
  const events = Array.from({ length: 120 }, (_, i) => ({
    type: 'threat_detected', severity: 'critical', source: 'edr', asset: `soc-${String(i).padStart(3, '0')}.clinic.test`,
    timestamp: new Date(now - (i * 7 + 1) * 60000).toISOString().replace(/\.\d+Z$/, 'Z'),
    message: `Beacon to a known C2 from host ${i}`, indicator: `198.51.100.${i}`,
  }));
  await api('POST', '/api/events', { events }, key);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  smtp?.close();
});

async function signedIn(viewport = { width: 1280, height: 900 }, setup) {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport });
  if (setup) await setup(context);
  const page = await context.newPage();
  const w = watch(page);
  await page.goto(server.base + '/login');
  await page.getByLabel('E-mail address').fill('demo@garrison.example');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => u.pathname === '/');
  await settle(page);
  return { context, page, w };
}

async function settle(page) {
  await page.locator('main h1').first().waitFor();
  await page.waitForFunction(() => !document.querySelector('main .loading'), null, { timeout: 15000 });
}

async function open(page, p) {
  await page.goto(server.base + p);
  await settle(page);
}

const query = (page) => Object.fromEntries(new URL(page.url()).searchParams);
const rows = (page) => page.locator('main table.sortable tbody tr');
const column = async (page, n) => (await page.locator(`main table.sortable tbody tr td:nth-child(${n})`).allInnerTexts()).map((s) => s.trim());
// listTotal is the count a list says it holds ("1–50 of 1,234", or "7 in all").
async function listTotal(page, caption) {
  const text = (await page.getByRole('navigation', { name: `Pages of ${caption}` }).or(page.locator('main .pager-total')).first().innerText()).replace(/,/g, '');
  const m = /of (\d+)/.exec(text) || /^(\d+) in all/.exec(text);
  assert.ok(m, `no total in "${text}"`);
  return Number(m[1]);
}
// until polls the page until fn(arg) holds.
async function until(page, fn, arg, what = String(fn)) {
  for (let i = 0; i < 200; i++) {
    if (await page.evaluate(fn, arg)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`never: ${what}`);
}
const waitReads = async (get, n) => {
  for (let i = 0; i < 200 && get() < n; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(get(), n);
};

test('sorting: by the API where it sorts, within the page otherwise; keyboard and aria-sort', async () => {
  const { context, page, w } = await signedIn();
  await open(page, '/events');
  const time = page.locator('th', { has: page.getByRole('button', { name: /^Time/ }) });
  assert.equal(await time.getAttribute('aria-sort'), 'descending', 'the default order is not marked');

  // Severity sorts on the server: the request says so, and every page follows.
  const severity = page.getByRole('button', { name: /^Severity/ });
  const [req] = await Promise.all([page.waitForRequest((r) => r.url().includes('/api/events?') && r.url().includes('sort=severity')), severity.click()]);
  assert.match(req.url(), /order=desc/);
  await settle(page);
  assert.deepEqual({ sort: query(page).sort, order: query(page).order }, { sort: 'severity', order: 'desc' });
  assert.equal(await page.locator('th', { has: severity }).getAttribute('aria-sort'), 'descending');
  assert.equal(await time.getAttribute('aria-sort'), 'none');
  assert.equal((await column(page, 2))[0].toLowerCase(), 'critical');
  await page.getByText('Sorted by Severity, most severe first.').waitFor();
  // By keyboard: the focus stays on the header, Enter turns the order round.
  assert.equal(await page.evaluate(() => document.activeElement.dataset.focusKey), 'sort-severity');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('order') === 'asc');
  await settle(page);
  assert.equal(await page.locator('th', { has: page.getByRole('button', { name: /^Severity/ }) }).getAttribute('aria-sort'), 'ascending');
  assert.equal((await column(page, 2))[0].toLowerCase(), 'info');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.focusKey), 'sort-severity');
  // Tab reaches the next header.
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.focusKey), 'sort-type');

  // Asset: the API does not sort alerts by asset; this page's rows are
  // sorted and the list says so.
  await open(page, '/alerts?status=open');
  const before = await column(page, 4);
  await page.getByRole('button', { name: /^Asset/ }).click();
  await page.waitForFunction(() => new URLSearchParams(location.search).get('sort') === 'asset');
  await settle(page);
  const after = await column(page, 4);
  assert.deepEqual(after, [...before].sort((a, b) => a.localeCompare(b, undefined, { numeric: true, sensitivity: 'base' })));
  assert.equal(await page.locator('th', { has: page.getByRole('button', { name: /^Asset/ }) }).getAttribute('aria-sort'), 'ascending');
  await page.getByText(/within this page only/).waitFor();
  // Reload keeps it.
  await page.reload();
  await settle(page);
  assert.deepEqual(await column(page, 4), after);
  assert.deepEqual(w.problems, []);
  await context.close();
});

test('numbered pages from the list envelope, kept in the address; reload and Back', async () => {
  const { context, page, w } = await signedIn();
  const total = (await api('GET', '/api/alerts?status=open&limit=0')).pagination.total;
  const last = Math.ceil(total / 50);
  assert.ok(last >= 3, `only ${total} open alerts`);
  await open(page, '/alerts?status=open');
  const nav = page.getByRole('navigation', { name: 'Pages of Alerts' });
  await nav.getByText(`1–50 of ${total}`).waitFor();
  assert.match(await nav.locator('[aria-current=page]').innerText(), /\b1$/);
  assert.equal(await nav.getByRole('link', { name: 'First page' }).count(), 0, 'the first page offers itself');
  await nav.getByRole('link', { name: 'Page 2', exact: true }).click();
  await page.waitForFunction(() => new URLSearchParams(location.search).get('page') === '2');
  await settle(page);
  await nav.getByText(`51–100 of ${total}`).waitFor();
  const second = await column(page, 4);
  // The numbers around the current page, and the way to the last.
  for (const name of ['First page', 'Previous page', 'Page 1', 'Page 3', 'Next page', 'Last page']) {
    assert.equal(await nav.getByRole('link', { name, exact: true }).count(), 1, `no ${name} link on page 2`);
  }
  await page.reload();
  await settle(page);
  await nav.getByText(`51–100 of ${total}`).waitFor();
  assert.deepEqual(await column(page, 4), second, 'a reload showed another page');
  await nav.getByRole('link', { name: 'Last page' }).click();
  await page.waitForFunction((n) => new URLSearchParams(location.search).get('page') === String(n), last);
  await settle(page);
  await nav.getByText(`${(last - 1) * 50 + 1}–${total} of ${total}`).waitFor();
  assert.equal(await nav.getByRole('link', { name: 'Next page' }).count(), 0);
  await page.goBack();
  await page.waitForFunction(() => new URLSearchParams(location.search).get('page') === '2');
  await settle(page);
  await nav.getByText(`51–100 of ${total}`).waitFor();
  // Every list page pages the same way.
  for (const [p, caption] of [['/events', 'Security events'], ['/threats', 'Indicators']]) {
    await open(page, p + '?page=2');
    await page.getByRole('navigation', { name: `Pages of ${caption}` }).locator('[aria-current=page]').filter({ hasText: '2' }).waitFor();
  }
  assert.deepEqual(w.problems, []);
  await context.close();
});

test('bulk resolution asks for a disposition and says how many alerts it changes', async () => {
  const { context, page, w } = await signedIn();
  await open(page, '/alerts?status=open&sort=asset&order=asc');
  const boxes = page.locator('main tbody input[type=checkbox]');
  const ids = [];
  for (let i = 0; i < 3; i++) {
    await boxes.nth(i).check();
    ids.push(await page.locator('main tbody tr').nth(i).getAttribute('data-id'));
  }
  await page.getByText('3 alerts selected').waitFor();
  await page.getByRole('button', { name: 'Resolve…' }).click();
  const d = page.getByRole('dialog');
  await d.getByText('This resolves').waitFor();
  assert.equal(await d.locator('.change-count').innerText(), '3 alerts');
  // Without a disposition nothing is sent.
  let sent = 0;
  page.on('request', (r) => { if (r.method() === 'PATCH') sent++; });
  await d.getByRole('button', { name: 'Resolve 3 alerts' }).click();
  await d.locator('fieldset[data-field=disposition] .field-error').filter({ hasText: /required/ }).waitFor();
  assert.equal(sent, 0, 'a resolution without disposition was sent');
  await d.getByRole('radio', { name: /False positive/ }).check();
  await d.getByLabel('Note').fill('Scanner misfired on the clinic subnet.');
  const [res] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().endsWith('/api/alerts')),
    d.getByRole('button', { name: 'Resolve 3 alerts' }).click()]);
  assert.equal(res.status(), 200);
  assert.deepEqual(res.request().postDataJSON(), { ids, status: 'resolved', disposition: 'false_positive', note: 'Scanner misfired on the clinic subnet.' });
  await page.getByText('3 alerts resolved as false positive.').waitFor();
  for (const id of ids) {
    const a = (await api('GET', '/api/alerts/' + id)).data;
    assert.equal(a.status, 'resolved');
    assert.equal(a.disposition, 'false_positive');
  }
  // The list shows them gone from the open ones, and the selection is empty.
  await page.getByText('No alert selected').waitFor();
  for (const id of ids) assert.equal(await page.locator(`main tr[data-id="${id}"]`).count(), 0);
  assert.deepEqual(w.problems, []);
  await context.close();
});

test('bulk assignment to a member by name, and back to nobody', async () => {
  const { context, page, w } = await signedIn();
  await open(page, '/alerts?status=open');
  await page.getByRole('checkbox', { name: 'Select all on this page' }).check();
  const n = await rows(page).count();
  await page.getByText(`${n} alerts selected`).waitFor();
  await page.getByRole('button', { name: 'Assign…' }).click();
  const d = page.getByRole('dialog');
  assert.equal(await d.locator('.change-count').innerText(), `${n} alerts`);
  await d.getByLabel('Assign to').selectOption({ label: `${me.name} (${me.email})` });
  const [res] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().endsWith('/api/alerts')),
    d.getByRole('button', { name: `Assign ${n} alerts` }).click()]);
  const body = res.request().postDataJSON();
  assert.equal(body.assignee, me.id);
  assert.equal(body.ids.length, n);
  await page.getByText(`${n} alerts assigned to ${me.name}.`).waitFor();
  // People by name, never by id.
  assert.equal(await page.locator('main tbody').getByText(`${me.name} (you)`).count(), n);
  assert.equal(await page.locator('main').getByText(/usr_[0-9a-z]{26}/).count(), 0);
  const one = (await api('GET', '/api/alerts/' + body.ids[0])).data;
  assert.equal(one.assignee, me.id);

  await page.getByRole('checkbox', { name: 'Select all on this page' }).check();
  await page.getByRole('button', { name: 'Assign…' }).click();
  await d.getByLabel('Assign to').selectOption({ label: 'Nobody: release them' });
  const [again] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().endsWith('/api/alerts')),
    d.getByRole('button', { name: /^Assign \d+ alerts?$/ }).click()]);
  assert.equal(again.request().postDataJSON().assignee, null);
  await page.getByText(/released: nobody is assigned/).waitFor();
  assert.equal((await api('GET', '/api/alerts/' + body.ids[0])).data.assignee, null);
  assert.deepEqual(w.problems, []);
  await context.close();
});

test('one alert: acknowledge, assign, resolve with a disposition; all shown by name', async () => {
  const { context, page, w } = await signedIn();
  const alert = (await api('GET', '/api/alerts?status=open&limit=200')).data.find((a) => !a.assignee && !a.acknowledged_at);
  await open(page, '/alerts/' + alert.id);
  const facts = page.locator('dl.pairs').first();
  await facts.getByText('Not yet').waitFor();
  const [ack] = await Promise.all([page.waitForResponse((r) => r.url().endsWith(`/api/alerts/${alert.id}/acknowledge`)),
    page.getByRole('button', { name: 'Acknowledge' }).click()]);
  assert.equal(ack.status(), 200);
  await page.getByText('Acknowledged: the team can see someone is on it.').waitFor();
  await facts.getByText(`${me.name} (you)`).first().waitFor();
  assert.equal(await page.getByRole('button', { name: 'Acknowledge' }).count(), 0);
  await page.getByRole('button', { name: 'Assign to me' }).click();
  await page.getByText('Assigned to you.').waitFor();
  assert.equal((await api('GET', '/api/alerts/' + alert.id)).data.assignee, me.id);
  // The assign form picks a member by name.
  assert.equal(await page.getByLabel('Assignee').inputValue(), me.id);
  await page.getByRole('radio', { name: /True positive/ }).check();
  await page.getByLabel('Note').fill('Host reimaged.');
  await page.getByRole('button', { name: 'Resolve' }).click();
  await page.getByText('Alert resolved as true positive.').waitFor();
  const done = (await api('GET', '/api/alerts/' + alert.id)).data;
  assert.equal(done.disposition, 'true_positive');
  assert.ok(done.acknowledged_at && done.acknowledged_by === me.id);
  const history = page.locator('.thread');
  for (const line of ['Acknowledged', `Assigned to ${me.name}`, 'Resolved as true positive']) await history.getByText(line).first().waitFor();
  assert.equal(await page.locator('main').getByText(/\b(usr|key)_[0-9a-z]{26}\b/).count(), 0, 'an id is shown where a name is known');
  // A ticket opened from the alert; each names the other.
  await page.getByRole('button', { name: 'Open a ticket' }).click();
  await page.getByText('A ticket was opened for this alert.').waitFor();
  const ticketId = (await api('GET', '/api/alerts/' + alert.id)).data.ticket_id;
  assert.ok(ticketId);
  await page.getByRole('link', { name: ticketId }).click();
  await page.waitForURL((u) => u.pathname === '/tickets/' + ticketId);
  await page.getByRole('link', { name: 'Opened from this alert' }).waitFor();
  // The list shows the assignee and disposition.
  await open(page, '/alerts?status=resolved');
  const row = page.locator(`main tr[data-id="${alert.id}"]`);
  await row.getByText('True positive').waitFor();
  await row.getByText(`${me.name} (you)`).waitFor();
  assert.deepEqual(w.problems, []);
  await context.close();
});

test('time range: presets and a custom range in the address, used by events, alerts and the dashboard', async () => {
  const { context, page, w } = await signedIn();
  await open(page, '/events');
  const [req] = await Promise.all([page.waitForRequest((r) => r.url().includes('/api/events?') && r.url().includes('from=')),
    page.getByLabel('Time range').selectOption('1h')]);
  await settle(page);
  assert.equal(query(page).range, '1h');
  const from = new URL(req.url()).searchParams.get('from');
  assert.ok(Math.abs(Date.parse(from) - (Date.now() - 3600e3)) < 60e3, `from=${from} is not an hour ago`);
  const expected = (await api('GET', '/api/events?limit=0&from=' + from)).pagination.total;
  assert.ok(expected >= 9, `only ${expected} events in the last hour`);
  assert.equal(await listTotal(page, 'Security events'), expected);
  await page.reload();
  await settle(page);
  assert.equal(await page.getByLabel('Time range').inputValue(), '1h');

  // A custom range: from and to in the address, as the API writes them.
  await page.getByLabel('Time range').selectOption('custom');
  const start = new Date(Date.now() - 6 * 3600e3), end = new Date(Date.now() - 3600e3);
  const local = (d) => new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 19);
  await page.getByLabel('From (your time)').fill(local(start));
  await page.getByLabel('To (your time)').fill(local(end));
  const [custom] = await Promise.all([page.waitForRequest((r) => r.url().includes('/api/events?') && r.url().includes('to=')),
    page.getByRole('button', { name: 'Apply range' }).click()]);
  await settle(page);
  const q = query(page);
  assert.equal(q.range, 'custom');
  assert.equal(q.from, start.toISOString().replace(/\.\d+Z$/, 'Z'));
  assert.equal(q.to, end.toISOString().replace(/\.\d+Z$/, 'Z'));
  assert.equal(new URL(custom.url()).searchParams.get('from'), q.from);
  await page.goBack();
  await page.waitForFunction(() => new URLSearchParams(location.search).get('range') === '1h');

  // Alerts: the API has no time filter; the page shows the run of the
  // list (by last activity) inside the range, counted exactly.
  const all = (await api('GET', '/api/alerts?limit=200')).data;
  const since = Date.now() - 24 * 3600e3;
  const inDay = all.filter((a) => Date.parse(a.last_seen) >= since).length;
  await open(page, '/alerts?range=24h');
  assert.equal(await page.getByLabel('Time range').inputValue(), '24h');
  assert.ok(inDay >= 100 && inDay < all.length, `${inDay} of ${all.length} alerts in the last day`);
  assert.equal(await listTotal(page, 'Alerts'), inDay);
  // The last page ends where the range does.
  await page.getByRole('navigation', { name: 'Pages of Alerts' }).getByRole('link', { name: 'Last page' }).click();
  await page.waitForFunction(() => new URLSearchParams(location.search).get('page') === '3');
  await settle(page);
  assert.equal(await rows(page).count(), inDay - 100);

  // The dashboard asks the timeline for the range's days.
  await open(page, '/');
  assert.equal(await page.getByLabel('Time range').inputValue(), '30d');
  const [tl] = await Promise.all([page.waitForRequest((r) => r.url().includes('/api/dashboard/risk-timeline')), page.getByLabel('Time range').selectOption('7d')]);
  assert.equal(new URL(tl.url()).searchParams.get('days'), '7');
  await settle(page);
  assert.equal(query(page).range, '7d');
  await page.getByRole('heading', { name: 'Events: last 7 days' }).waitFor();
  assert.deepEqual(w.problems, []);
  await context.close();
});

test('auto-refresh: off by default, every 30 s when on, paused while hidden, one request at a time', async () => {
  const { context, page, w } = await signedIn(undefined, async (c) => {
    // Whether the tab is hidden is the test's to say.
    await c.addInitScript(() => {
      let hidden = false;
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (hidden ? 'hidden' : 'visible') });
      window.__setHidden = (v) => { hidden = v; document.dispatchEvent(new Event('visibilitychange')); };
    });
  });
  // And so is the page's clock: time moves when the test says.
  await page.clock.install();
  await open(page, '/events');
  await page.clock.pauseAt(Date.now() + 1000);
  const state = page.locator('.refresh-state');
  const stateIs = (want) => until(page, (x) => document.querySelector('.refresh-state').dataset.state === x, want, `state ${want}`);
  assert.equal(await state.getAttribute('data-state'), 'off');
  assert.equal(await page.getByLabel('Auto-refresh').inputValue(), '0');
  let reads = 0, inFlight = 0, most = 0, hold = null;
  await page.route('**/api/events?*', async (route) => {
    reads++;
    most = Math.max(most, ++inFlight);
    if (hold) await hold;
    await route.continue();
    inFlight--;
  });
  await page.clock.runFor(65000);
  assert.equal(reads, 0, 'an automatic refresh while it is off');

  await page.getByLabel('Auto-refresh').selectOption('30');
  assert.equal(query(page).refresh, '30');
  assert.equal(await state.getAttribute('data-state'), 'on');
  await state.getByText('Auto-refresh is on, every 30 s').waitFor();
  await page.clock.runFor(29000);
  assert.equal(reads, 0);
  await page.clock.runFor(2000);
  await waitReads(() => reads, 1);
  await until(page, () => /updated/.test(document.querySelector('.refresh-state').textContent), null, 'updated');

  // Hidden: nothing is read, however long; back: one read at once.
  await page.evaluate(() => window.__setHidden(true));
  await page.clock.runFor(120000);
  await stateIs('paused');
  assert.equal(reads, 1, 'refreshed while the tab was hidden');
  await page.evaluate(() => window.__setHidden(false));
  await waitReads(() => reads, 2);
  await stateIs('on');

  // A slow answer: the clock runs on, no second request stacks behind it.
  let release;
  hold = new Promise((r) => { release = r; });
  await page.clock.runFor(31000);
  await waitReads(() => reads, 3);
  await stateIs('busy');
  await page.clock.runFor(180000);
  assert.equal(reads, 3, 'a refresh started while one was waiting');
  hold = null;
  release();
  await stateIs('on');
  await page.clock.runFor(31000);
  await waitReads(() => reads, 4);
  assert.equal(most, 1, 'requests stacked');

  // Reload keeps it on; off stops it.
  await stateIs('on');
  await page.reload();
  await settle(page);
  assert.equal(await page.getByLabel('Auto-refresh').inputValue(), '30');
  await page.getByLabel('Auto-refresh').selectOption('0');
  assert.equal(await state.getAttribute('data-state'), 'off');
  assert.equal(query(page).refresh, undefined);
  const before = reads;
  await page.clock.runFor(120000);
  assert.equal(reads, before, 'refreshed after being turned off');
  assert.deepEqual(w.problems, []);
  await context.close();
});

test('notifications: the bell on every page, its unread count, the panel, mark read', async () => {
  // An escalated ticket notifies the admins.
  const t = (await api('POST', '/api/tickets/submit', { subject: 'Front desk PC is slow', description: 'Since Monday the front desk PC takes minutes to open mail.' })).data;
  await api('PATCH', '/api/tickets/' + t.id, { status: 'escalated', note: 'Needs a technician on site.' });
  const unread = async () => (await api('GET', '/api/notifications?unread=true&limit=1')).pagination.total;
  const count = await unread();
  assert.ok(count >= 1, 'no unread notification to show');
  const { context, page, w } = await signedIn();
  for (const p of ['/', '/events', '/alerts', '/settings?tab=org', '/leads']) {
    await open(page, p);
    await page.waitForFunction((n) => document.querySelector('button.bell').dataset.count === String(n), count);
    assert.equal(await page.locator('header').getByRole('button', { name: `Notifications, ${count} unread`, exact: true }).count(), 1);
    assert.equal(await page.locator('.bell-count').innerText(), String(count));
  }
  const bell = page.locator('header').getByRole('button', { name: /^Notifications/ });
  await bell.click();
  assert.equal(await bell.getAttribute('aria-expanded'), 'true');
  const panel = page.getByRole('region', { name: 'Notifications' });
  const item = panel.locator('li.unread').filter({ hasText: 'Front desk PC is slow' });
  await item.waitFor();
  assert.equal(await item.getByRole('link').getAttribute('href'), '/tickets/' + t.id);
  const [res] = await Promise.all([page.waitForResponse((r) => /\/api\/notifications\/ntf_[0-9a-z]+\/read$/.test(r.url())),
    item.getByRole('button', { name: /^Mark read/ }).click()]);
  assert.equal(res.status(), 200);
  await page.waitForFunction((n) => document.querySelector('button.bell').dataset.count === String(n), count - 1);
  assert.equal(await unread(), count - 1);
  // Escape closes it and gives the focus back to the bell.
  await page.keyboard.press('Escape');
  assert.equal(await panel.count(), 0);
  assert.equal(await bell.getAttribute('aria-expanded'), 'false');
  assert.equal(await page.evaluate(() => document.activeElement.classList.contains('bell')), true);
  // All of them, on their own page.
  await bell.click();
  await page.getByRole('link', { name: 'All notifications →' }).click();
  await page.waitForURL((u) => u.pathname === '/notifications');
  await settle(page);
  await page.locator('main').getByText('Front desk PC is slow').first().waitFor();
  assert.deepEqual(w.problems, []);
  await context.close();
});

test('charts fill their card, are drawn again when it resizes, and the daily measure is not stuck at 100', async () => {
  const { context, page, w } = await signedIn();
  await open(page, '/');
  await page.waitForFunction(() => document.querySelectorAll('.chart-box svg.chart').length >= 2);
  const measure = () => page.evaluate(() => [...document.querySelectorAll('.chart-box')].map((box) => {
    const svg = box.querySelector('svg.chart');
    const card = box.closest('.panel');
    const cs = getComputedStyle(card);
    return { box: box.clientWidth, card: card.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight),
      view: Number(svg.getAttribute('viewBox').split(' ')[2]), drawn: svg.getBoundingClientRect().width };
  }));
  const wide = await measure();
  for (const m of wide) {
    assert.ok(Math.abs(m.box - m.card) <= 1, `a chart box of ${m.box} px in a card of ${m.card} px`);
    assert.ok(Math.abs(m.view - m.box) <= 1 && Math.abs(m.drawn - m.box) <= 1, `a chart drawn ${m.view} units wide in a box of ${m.box} px: ${JSON.stringify(m)}`);
  }
  await page.setViewportSize({ width: 760, height: 900 });
  await page.waitForFunction((before) => {
    const boxes = [...document.querySelectorAll('.chart-box')];
    return boxes.every((b, i) => b.clientWidth !== before[i] && Number(b.querySelector('svg').getAttribute('viewBox').split(' ')[2]) === b.clientWidth);
  }, wide.map((m) => m.box));
  for (const m of await measure()) assert.ok(m.box < wide[0].box && Math.abs(m.view - m.box) <= 1, JSON.stringify(m));

  // The timeline plots the weighted count on a stated logarithmic scale:
  // the demo's days all have a risk score near 100, and still the line
  // tells them apart.
  const days = (await api('GET', '/api/dashboard/risk-timeline?days=30')).data.points.filter((p) => p.events > 0);
  const risks = days.map((p) => p.risk), weights = days.map((p) => p.weight);
  assert.ok(Math.min(...risks) >= 85 && Math.max(...weights) >= 2 * Math.min(...weights),
    `the demo's days should crowd the top of the risk score while their weights differ: risks ${risks}, weights ${weights}`);
  const line = page.locator('svg.chart[aria-label^="Severity-weighted events per day"]');
  await line.waitFor();
  await page.getByText('Logarithmic scale:').waitFor();
  assert.ok(await line.locator('.axis-title').filter({ hasText: 'log scale' }).count());
  const ys = (await line.locator('polyline').getAttribute('points')).split(' ').slice(1, -1).map((p) => Number(p.split(',')[1]));
  assert.ok(Math.max(...ys) - Math.min(...ys) > 20, `the line is flat: ${ys.join(' ')}`);
  assert.ok(new Set(ys.map(Math.round)).size > ys.length / 3, 'the days are not told apart');
  assert.deepEqual(w.problems, []);
  await context.close();
});

test('people are named, and no text says an API path', async () => {
  const { context, page, w } = await signedIn();
  const run = (await api('POST', '/api/agents/onboarding/execute', {})).data.agent_run_id;
  for (let i = 0; i < 100; i++) {
    if ((await api('GET', `/api/agents/onboarding/executions/${run}`)).data.status === 'completed') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const p of [`/agents/runs/${run}?agent=onboarding`, '/events?severity=critical&range=1h&type=dns_anomaly', '/settings?tab=audit', '/tickets', '/alerts']) {
    await open(page, p);
    const text = await page.locator('main').innerText();
    assert.doesNotMatch(text, /\b(GET|POST|PATCH|DELETE) \/api\//, `${p} speaks in API paths`);
    assert.doesNotMatch(text, /\b(usr|key)_[0-9a-z]{26}\b/, `${p} shows a person's or key's id`);
  }
  assert.deepEqual(w.problems, []);
  await context.close();
});

test('hunting: search any field, a bad filter named beside it, pivot on a value, one event with its original, export what matched', async () => {
  const at = new Date().toISOString();
  const lines = [
    `<86>1 ${at} web-01 sshd 1193 - - Failed password for root from 203.0.113.9 port 52942 ssh2`,
    `<86>1 ${at} web-01 sshd 1194 - - Failed password for admin from 203.0.113.10 port 52950 ssh2`,
    `<134>1 ${at} fw-01 filterlog 92653 - - 7,,,1000000102,vtnet0.5,match,block,in,4,0x0,,64,19008,0,DF,6,tcp,60,203.0.113.9,192.168.1.100,42970,80,0,S,523876198,,64240,,mss`,
  ].join('\n') + '\n';
  const r = await server.request('POST', '/api/webhooks/syslog', { token: key, body: lines, contentType: 'text/plain' });
  assert.equal(r.status, 201, r.text);
  const { context, page, w } = await signedIn();
  await open(page, '/events');
  await page.getByLabel('Source IP').fill('203.0.113.0/24');
  await page.getByLabel('Words').fill('FAILED');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.waitForFunction(() => new URLSearchParams(location.search).get('src_ip') === '203.0.113.0/24');
  await settle(page);
  assert.equal(await rows(page).count(), 2);
  // A filter the API refuses is named beside its field, and nothing moves.
  await page.getByLabel('Source IP').fill('10.0.0');
  w.expect(400, '/api/events?q=FAILED&src_ip=10.0.0');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator('[data-field="src_ip"] .field-error').getByText('must be an IP address or a CIDR prefix').waitFor();
  assert.equal(query(page).src_ip, '203.0.113.0/24');
  // Pivot: the user in a row searches for that user.
  await open(page, '/events?source=syslog');
  await page.getByRole('link', { name: 'root', exact: true }).first().click();
  await page.waitForFunction(() => new URLSearchParams(location.search).get('user') === 'root');
  await settle(page);
  assert.equal(await rows(page).count(), 1);
  // One event: its fields and the line as it came.
  await rows(page).first().getByRole('link').first().click();
  await page.waitForURL((u) => u.pathname.startsWith('/events/evt_'));
  await page.getByRole('heading', { name: 'Original record' }).waitFor();
  assert.match(await page.locator('main pre').last().innerText(), /sshd 1193 - - Failed password for root from 203\.0\.113\.9/);
  await page.locator('dd', { hasText: /^52942$/ }).waitFor();
  // Export what matches this address: a CSV file of its three events.
  await open(page, '/events?src_ip=203.0.113.9');
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  assert.equal(file.suggestedFilename(), 'garrison-events.csv');
  const csv = await (await import('node:fs')).promises.readFile(await file.path(), 'utf8');
  const csvLines = csv.trim().split('\n');
  assert.equal(csvLines.length, 3, csv);
  assert.match(csvLines[0], /^id,timestamp,received_at,type,severity,source,asset,message/);
  assert.deepEqual(w.problems, []);
  await context.close();
});
