// A provider and its clients in a real browser: a technician switching
// between two clients (the header and its banner say which one, and each
// client's data stays its own), the fleet worst first with counts that
// open the client's filtered page, the alert queue across clients, a
// provider admin adding, assigning and offboarding clients, and a client's
// own user, who sees no switcher and no Clients page. axe-core checks the
// new pages; screenshots go to screenshots/ (this file runs after
// pages.test.mjs, which empties that directory).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startSMTP } from './smtp.mjs';
import { startGarrison } from './server.mjs';
import { launch, watch, axeSource } from './browser.mjs';

const shots = path.join(import.meta.dirname, 'screenshots');
const password = 'correct horse battery staple';
const ann = 'ann@acme-msp.test', tom = 'tom@acme-msp.test', dora = 'dora@dental.test';

let smtp, server, browser, annToken, dental, bakery, dentalAlert, bakeryAlert;

async function api(method, p, body, token = annToken) {
  const r = await server.request(method, p, { token, body });
  assert.ok(r.status < 300, `${method} ${p}: ${r.status} ${r.text}`);
  return r.body;
}

// alertOf sends one event to a client (acting in it) and waits for its alert.
async function alertOf(client, event) {
  const token = (await api('POST', '/api/auth/switch-org', { org_id: client.id })).token;
  await api('POST', '/api/events', { events: [{ source: 'edr', timestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), ...event }] }, token);
  for (let i = 0; i < 100; i++) {
    const a = (await api('GET', '/api/alerts?limit=5', undefined, token)).data.find((x) => x.affected_asset === event.asset);
    if (a) return a;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`no alert in ${client.name}`);
}

before(async () => {
  smtp = await startSMTP();
  server = await startGarrison({ smtp });
  // The provider's admin, confirmed (only confirmed people invite).
  annToken = (await api('POST', '/api/auth/register', { email: ann, password, name: 'Ann Admin', org: 'Acme MSP' }, null)).token;
  const mail = await smtp.waitFor(ann, /Confirm your Garrison/);
  await api('POST', '/api/auth/verify-email', { token: mail.body.match(/verify-email\?token=([A-Za-z0-9_-]+)/)[1] }, null);
  dental = (await api('POST', '/api/clients', { name: 'Dental One', admin_email: dora })).data;
  bakery = (await api('POST', '/api/clients', { name: 'Bakery Two' })).data;
  const invite = (await api('POST', '/api/org/invites', { email: tom, role: 'technician' })).data;
  await api('POST', '/api/auth/register', { email: tom, password, name: 'Tom Tech', invite_token: invite.token }, null);
  await api('POST', '/api/auth/register', { email: dora, password, name: 'Dora Dentist', invite_token: dental.admin_invite.token }, null);
  // Dental One is under attack; Bakery Two has one medium alert.
  dentalAlert = await alertOf(dental, { type: 'threat_detected', severity: 'critical', asset: 'dental-ws-01.dental.test',
    message: 'Ransomware beacon from the front-desk PC', indicator: '203.0.113.66' });
  for (let i = 2; i <= 4; i++) {
    await alertOf(dental, { type: 'threat_detected', severity: 'critical', asset: `dental-ws-0${i}.dental.test`, message: `Beacon from ${i}`, indicator: `203.0.113.${60 + i}` });
  }
  bakeryAlert = await alertOf(bakery, { type: 'threat_detected', severity: 'high', asset: 'bakery-pos.bakery.test',
    message: 'Port scan against the till', indicator: '198.51.100.9' });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  smtp?.close();
});

async function settle(page) {
  await page.locator('main h1').first().waitFor();
  await page.waitForFunction(() => !document.querySelector('main .loading'), null, { timeout: 15000 });
}

async function signIn(email, { viewport = { width: 1280, height: 900 }, bypassCSP = false } = {}) {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport, bypassCSP });
  const page = await context.newPage();
  const w = watch(page);
  await page.goto(server.base + '/login');
  await page.getByLabel('E-mail address').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => u.pathname === '/');
  await settle(page);
  return { context, page, w };
}

async function open(page, p) {
  await page.goto(server.base + p);
  await settle(page);
}

const switcher = (page) => page.locator('header .org-switch > button');
const banner = (page) => page.locator('header .acting');

// switchTo opens the header's switcher and picks an organization, then
// waits for the page shown in it.
async function switchTo(page, name) {
  await switcher(page).click();
  await page.getByRole('region', { name: 'Switch organization' }).getByRole('button', { name: new RegExp('^' + name) }).click();
  await page.waitForFunction((n) => document.querySelector('header .org-name')?.textContent === n, name);
  await settle(page);
}

async function axe(page) {
  await page.addScriptTag({ content: axeSource });
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
  });
}

const shot = (page, name) => page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
const alertRows = (page) => page.locator('main table tbody tr');

test('a technician switches between two clients: the header says which, and each client\'s data stays its own', async () => {
  const { context, page, w } = await signIn(tom);
  // At home in the provider: the switcher names it, no client banner.
  assert.equal(await page.locator('header .org-name').textContent(), 'Acme MSP');
  assert.equal(await banner(page).count(), 0);
  assert.ok(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).isVisible());

  // By keyboard: the switcher is a button that opens a panel of buttons.
  await switcher(page).focus();
  await page.keyboard.press('Enter');
  const panel = page.getByRole('region', { name: 'Switch organization' });
  await panel.waitFor();
  assert.equal(await switcher(page).getAttribute('aria-expanded'), 'true');
  assert.deepEqual(await panel.locator('h3').allTextContents(), ['Acme MSP']);
  assert.deepEqual((await panel.locator('.org-item-name').allInnerTexts()), ['Acme MSP', 'Bakery Two', 'Dental One'], 'provider first, then its clients');
  assert.equal(await panel.locator('[aria-current=true]').innerText().then((s) => s.split('\n')[0]), 'Acme MSP');
  await shot(page, 'org-switcher-1280');
  await page.keyboard.press('Escape');
  assert.equal(await switcher(page).getAttribute('aria-expanded'), 'false');
  assert.equal(await page.evaluate(() => document.activeElement.classList.contains('org-button')), true, 'Escape returns to the switcher');
  await page.keyboard.press('Enter');
  await panel.waitFor();
  // Tab to Dental One (the filter is shown only for long lists).
  for (let i = 0; i < 10 && !(await page.evaluate(() => document.activeElement.textContent.startsWith('Dental One'))); i++) await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('header .org-name')?.textContent === 'Dental One');
  await settle(page);

  // Acting in Dental One: said in words on every page, with the way back.
  await banner(page).waitFor();
  assert.match(await banner(page).innerText(), /Acting in Dental One — client of Acme MSP/);
  assert.match(await switcher(page).textContent(), /^Organization: ClientDental One, client of Acme MSP/);
  assert.match(await page.title(), /Dental One/);
  await open(page, '/alerts');
  assert.match(await banner(page).innerText(), /Acting in Dental One/, 'the banner is on every page, after a reload too');
  await page.locator('main table tbody tr[data-id="' + dentalAlert.id + '"]').waitFor();
  assert.equal(await page.locator(`main tr[data-id="${bakeryAlert.id}"]`).count(), 0);
  await shot(page, 'acting-in-client-alerts-1280');

  // To Bakery Two from the alerts page: the same page, in Bakery Two.
  await switchTo(page, 'Bakery Two');
  assert.equal(new URL(page.url()).pathname, '/alerts');
  assert.match(await banner(page).innerText(), /Acting in Bakery Two — client of Acme MSP/);
  await page.locator(`main tr[data-id="${bakeryAlert.id}"]`).waitFor();
  assert.equal(await page.locator(`main tr[data-id="${dentalAlert.id}"]`).count(), 0, 'Dental One\'s alert shows in Bakery Two');
  assert.equal(await page.getByText('dental-ws-01.dental.test').count(), 0);

  // One alert of Dental One's, opened in Bakery Two, is not there; switching
  // from an item's page goes to the list in the other organization.
  await page.goto(server.base + '/alerts/' + bakeryAlert.id);
  await settle(page);
  await switchTo(page, 'Dental One');
  assert.equal(new URL(page.url()).pathname, '/alerts');

  // Back to the provider through the banner.
  await banner(page).getByRole('button', { name: 'Back to Acme MSP' }).click();
  await page.waitForFunction(() => document.querySelector('header .org-name')?.textContent === 'Acme MSP');
  await settle(page);
  assert.equal(await banner(page).count(), 0);
  assert.deepEqual(w.problems, []);
  await context.close();
});

test('a tab keeps the organization it shows when another tab switches', async () => {
  const { context, page, w } = await signIn(tom);
  await switchTo(page, 'Dental One');
  const other = await context.newPage();
  const wo = watch(other);
  await open(other, '/alerts');
  assert.match(await banner(other).innerText(), /Dental One/);
  await switchTo(other, 'Bakery Two');
  // The first tab still shows Dental One and still reads Dental One's data.
  await open(page, '/alerts');
  assert.match(await banner(page).innerText(), /Acting in Dental One/);
  await page.locator(`main tr[data-id="${dentalAlert.id}"]`).waitFor();
  assert.deepEqual([...w.problems, ...wo.problems], []);
  await context.close();
});

test('the fleet: worst first, a risk sparkline, counts that open the client\'s filtered page', async () => {
  const { context, page, w } = await signIn(tom);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
  await settle(page);
  const names = (await page.locator('main table tbody tr td:first-child a').allInnerTexts()).map((s) => s.trim());
  assert.deepEqual(names, ['Dental One', 'Bakery Two'], 'worst first');
  assert.equal(await page.locator('main th[aria-sort=ascending]').innerText().then((s) => s.replace(/[▲▼↕]/g, '').trim()), 'Score');
  const row = page.locator(`main tr[data-id="${dental.id}"]`);
  assert.match(await row.locator('svg.spark').getAttribute('aria-label'), /^Risk of the last 7 days, oldest first: (\d+, ){6}\d+ \(of 100\)$/);
  await shot(page, 'clients-1280');
  // Sorted by name on the server, kept in the address.
  await page.getByRole('button', { name: /^Client/ }).click();
  await page.waitForFunction(() => new URLSearchParams(location.search).get('sort') === 'name');
  await settle(page);
  assert.deepEqual((await page.locator('main table tbody tr td:first-child a').allInnerTexts()).map((s) => s.trim()), ['Bakery Two', 'Dental One']);
  // Filtered by name.
  await open(page, '/clients?q=bak');
  assert.deepEqual((await page.locator('main table tbody tr td:first-child a').allInnerTexts()).map((s) => s.trim()), ['Bakery Two']);
  await open(page, '/clients');
  // The open critical count opens Dental One's critical alerts, acting in it.
  const critical = page.locator(`main tr[data-id="${dental.id}"]`).getByRole('link', { name: /open critical alerts in Dental One/ });
  assert.equal(await critical.innerText(), '4');
  await critical.click();
  await page.waitForURL((u) => u.pathname === '/alerts' && u.searchParams.get('severity') === 'critical' && u.searchParams.get('status') === 'open');
  await settle(page);
  assert.match(await banner(page).innerText(), /Acting in Dental One/);
  await page.locator(`main tr[data-id="${dentalAlert.id}"]`).waitFor();
  assert.equal(await page.getByLabel('Severity').inputValue(), 'critical');
  // The Clients page acting in a client offers the way back.
  await open(page, '/clients');
  await page.getByRole('button', { name: 'Switch to Acme MSP' }).click();
  await page.locator(`main tr[data-id="${dental.id}"]`).waitFor();
  assert.equal(await banner(page).count(), 0);
  assert.deepEqual(w.problems, []);
  await context.close();
});

test('the alert queue across clients: each alert names its client; opening one acts in that client', async () => {
  const { context, page, w } = await signIn(tom);
  await open(page, '/clients/alerts');
  const row = page.locator(`main tr[data-id="${dentalAlert.id}"]`);
  await row.waitFor();
  assert.equal(await row.getAttribute('data-client'), dental.id);
  assert.match(await row.innerText(), /Dental One/);
  assert.match(await page.locator(`main tr[data-id="${bakeryAlert.id}"]`).innerText(), /Bakery Two/);
  assert.equal(await alertRows(page).count(), 5);
  await shot(page, 'clients-alerts-1280');
  await open(page, '/clients/alerts?severity=high');
  assert.equal(await alertRows(page).count(), 1);
  await open(page, '/clients/alerts');
  await page.locator(`main tr[data-id="${dentalAlert.id}"]`).getByRole('link').click();
  await page.waitForURL((u) => u.pathname === '/alerts/' + dentalAlert.id);
  await settle(page);
  assert.match(await banner(page).innerText(), /Acting in Dental One/);
  assert.match(await page.locator('main h1').innerText(), new RegExp(dentalAlert.title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  assert.deepEqual(w.problems, []);
  await context.close();
});

test('a provider admin adds a client (its invitation shown once), assigns a technician, offboards a client', async () => {
  const { context, page, w } = await signIn(ann);
  await open(page, '/clients');
  await page.getByLabel('Client name').fill('Clinic Three');
  await page.getByLabel('First admin\'s e-mail (optional)').fill('carl@clinic.test');
  await page.getByRole('button', { name: 'Add client' }).click();
  const dlg = page.getByRole('dialog', { name: 'Client added' });
  await dlg.waitFor();
  assert.match(await dlg.locator('pre').innerText(), /\/register\?token=[A-Za-z0-9_-]+$/);
  await shot(page, 'clients-added-1280');
  await dlg.getByRole('button', { name: 'Done' }).click();
  await page.getByText('Clinic Three was added.').waitFor();
  const clinic = (await api('GET', '/api/clients?q=Clinic')).data[0];
  await page.locator(`main tr[data-id="${clinic.id}"]`).waitFor();
  // The header's switcher lists it at once.
  await switcher(page).click();
  await page.getByRole('region', { name: 'Switch organization' }).getByRole('button', { name: /^Clinic Three/ }).waitFor();
  await page.keyboard.press('Escape');

  // Tom reaches every client; Ann gives him Dental One only.
  await open(page, '/settings?tab=members');
  const tomRow = page.locator('main tr', { hasText: tom });
  await tomRow.getByText('All clients').waitFor();
  await tomRow.getByRole('button', { name: 'Choose the clients Tom Tech reaches' }).click();
  const pick = page.getByRole('dialog', { name: 'Clients Tom Tech reaches' });
  await pick.getByLabel('Dental One').waitFor();
  assert.equal(await pick.getByLabel('Dental One').isDisabled(), true, 'one client cannot be picked while all are');
  await pick.getByLabel(/All clients/).uncheck();
  await pick.getByLabel('Dental One').check();
  await shot(page, 'settings-assign-1280');
  await pick.getByRole('button', { name: 'Save' }).click();
  await tomRow.getByText('Dental One', { exact: true }).waitFor();
  await shot(page, 'settings-members-provider-1280');
  const tomToken = (await api('POST', '/api/auth/login', { email: tom, password }, null)).token;
  assert.deepEqual((await api('GET', '/api/auth/me', undefined, tomToken)).data.clients.map((c) => c.name), ['Dental One']);
  // The invitation offers technicians in a provider.
  assert.deepEqual(await page.getByLabel('Role', { exact: true }).locator('option').evaluateAll((os) => os.map((o) => o.value)), ['member', 'technician', 'admin']);

  // Offboarding asks for the exact name.
  await open(page, '/clients');
  await page.getByRole('button', { name: 'Offboard Clinic Three' }).click();
  const off = page.getByRole('dialog', { name: 'Offboard Clinic Three' });
  w.expect(400, '/api/clients/' + clinic.id);
  await off.getByLabel('Type "Clinic Three" to confirm').fill('clinic three');
  await off.getByRole('button', { name: 'Offboard and delete forever' }).click();
  await off.getByRole('alert').waitFor();
  await off.getByLabel('Type "Clinic Three" to confirm').fill('Clinic Three');
  await off.getByRole('button', { name: 'Offboard and delete forever' }).click();
  await page.getByText('Clinic Three was offboarded').waitFor();
  assert.equal(await page.locator(`main tr[data-id="${clinic.id}"]`).count(), 0);
  assert.equal((await api('GET', '/api/clients')).pagination.total, 2);
  assert.deepEqual(w.problems, []);
  await context.close();
});

test('a client\'s own user sees no switcher, no banner and no Clients page', async () => {
  const { context, page, w } = await signIn(dora);
  assert.equal(await page.locator('header .org-switch').count(), 0);
  assert.equal(await banner(page).count(), 0);
  const nav = page.getByRole('navigation', { name: 'Main' });
  assert.equal(await nav.getByRole('link', { name: 'Clients' }).count(), 0);
  assert.equal(await nav.getByRole('link', { name: 'Leads' }).count(), 0, 'outreach is the provider\'s');
  assert.match(await page.locator('header .who-name').innerText(), /Dora Dentist · Dental One/);
  await open(page, '/clients');
  await page.getByText('Only a provider\'s admins and technicians work with its clients.').waitFor();
  await open(page, '/alerts');
  await page.locator(`main tr[data-id="${dentalAlert.id}"]`).waitFor();
  await shot(page, 'client-user-alerts-1280');
  assert.deepEqual(w.problems, []);
  await context.close();
});

test('the new pages: no serious or critical accessibility violations (axe-core), and screenshots at 390 px', async () => {
  const found = [];
  const check = async (page, name) => { for (const v of await axe(page)) found.push(`${name}: ${v}`); };
  const { context, page } = await signIn(ann, { bypassCSP: true });
  for (const [name, p] of [['clients', '/clients'], ['clients-alerts', '/clients/alerts'], ['settings-members', '/settings?tab=members'], ['settings-org', '/settings?tab=org']]) {
    await open(page, p);
    await check(page, name);
  }
  await switcher(page).click();
  await page.getByRole('region', { name: 'Switch organization' }).waitFor();
  await check(page, 'switcher open');
  await page.keyboard.press('Escape');
  await open(page, '/settings?tab=members');
  await page.locator('main tr', { hasText: tom }).getByRole('button', { name: /^Choose the clients/ }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Save' }).waitFor();
  await check(page, 'assignment dialog');
  await page.keyboard.press('Escape');
  await switchTo(page, 'Dental One');
  for (const [name, p] of [['dashboard in a client', '/'], ['alerts in a client', '/alerts'], ['clients in a client', '/clients']]) {
    await open(page, p);
    await check(page, name);
  }
  await context.close();
  assert.deepEqual(found, []);

  const phone = await signIn(tom, { viewport: { width: 390, height: 844 } });
  for (const [name, p] of [['clients', '/clients'], ['clients-alerts', '/clients/alerts']]) {
    await open(phone.page, p);
    await shot(phone.page, `${name}-390`);
  }
  await switchTo(phone.page, 'Dental One');
  await open(phone.page, '/alerts');
  await shot(phone.page, 'acting-in-client-alerts-390');
  assert.deepEqual(phone.w.problems, []);
  await phone.context.close();
});
