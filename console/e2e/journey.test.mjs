// The console in a real browser: one user's whole journey through the
// product, from registration to a refused stale cookie, failing on any
// script error, console error or failed request. (pages.test.mjs visits
// every page for speed, accessibility and screenshots.)
//
// Run by .ci/browser-test (part of the README's test command, .ci/run). Needs Debian's chromium and
// the npm packages of .ci/package.json.
import path from 'node:path';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSMTP } from './smtp.mjs';
import { startGarrison } from './server.mjs';
import { launch, watch } from './browser.mjs';

const email = 'ann@clinic.test';
const password = 'correct horse battery staple';

let smtp, server, browser, context, page, watcher;

before(async () => {
  smtp = await startSMTP();
  server = await startGarrison({ smtp });
  browser = await launch();
  context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  watcher = watch(page);
});

after(async () => {
  await browser?.close();
  await server?.stop();
  smtp?.close();
});

// open goes to a console path and waits for its main content: the h1 and
// no loading state left.
async function open(p) {
  await page.goto(server.base + p);
  await settle();
}

async function settle() {
  await page.locator('main h1').first().waitFor();
  await page.waitForFunction(() => !document.querySelector('main .loading'), null, { timeout: 15000 });
}

function noProblems() {
  assert.deepEqual(watcher.problems, [], 'the browser saw problems');
}

// linkIn returns the console link a mail carries.
function linkIn(mail, pathPart) {
  const m = mail.body.match(new RegExp(`https://\\S+${pathPart}\\?token=[A-Za-z0-9_-]+`));
  assert.ok(m, `no ${pathPart} link in: ${mail.body}`);
  return m[0];
}

test('journey', async (t) => {
  await t.test('register', async () => {
    await open('/login');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await settle();
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Your name').fill('Ann Admin');
    await page.getByLabel('Password').fill(password);
    await page.getByLabel('Organization').fill('Clinic MSP');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL((u) => u.pathname === '/');
    await settle();
    await assert.doesNotReject(page.getByText('Clinic MSP').first().waitFor());
    noProblems();
  });

  await t.test('the session is out of scripts\' reach', async () => {
    const cookies = await page.evaluate(() => document.cookie);
    assert.ok(!cookies.includes('garrison_session'), `document.cookie shows the session: ${cookies}`);
    const session = (await context.cookies()).find((c) => c.name === 'garrison_session');
    assert.ok(session && session.httpOnly && session.secure && session.sameSite === 'Strict' && session.path === '/api');
  });

  await t.test('verify the address through the mail\'s link', async () => {
    const mail = await smtp.waitFor(email, /Confirm your Garrison/);
    await page.goto(linkIn(mail, '/verify-email'));
    await page.getByText('Your e-mail address is confirmed.').waitFor();
    assert.ok(!page.url().includes('token='), 'the token stays in the address bar');
    const me = await page.evaluate(async () => (await fetch('/api/auth/me', { headers: { 'X-Garrison-Console': '1' } })).json());
    assert.equal(me.data.email_verified, true);
    noProblems();
  });

  await t.test('an address squatted through an invitation is claimed from its mailbox', async () => {
    // The organization invites an address it does not own and registers it
    // with the token from its own answer; the owner then signs up.
    const victim = 'vic@elsewhere.test';
    const invite = await page.evaluate(async (to) => (await fetch('/api/org/invites', { method: 'POST',
      headers: { 'X-Garrison-Console': '1', 'Content-Type': 'application/json' }, body: JSON.stringify({ email: to }) })).json(), victim);
    const squat = await server.request('POST', '/api/auth/register',
      { body: JSON.stringify({ email: victim, password: 'the squatter password', name: 'Not Vic', invite_token: invite.data.token }) });
    assert.equal(squat.status, 201, squat.text);
    const other = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 } });
    const vic = await other.newPage();
    const seen = watch(vic);
    await vic.goto(server.base + '/register');
    await vic.getByLabel('E-mail address').fill(victim);
    await vic.getByLabel('Your name').fill('Vic Owner');
    await vic.getByLabel('Password').fill('the owner password is long');
    await vic.getByRole('button', { name: 'Create account' }).click();
    await vic.getByText(`Check the mailbox of ${victim}`).waitFor();
    await vic.screenshot({ path: path.join(import.meta.dirname, 'screenshots', 'register-claim-1280.png') });
    let mail;
    for (let i = 0; i < 60 && !mail?.body.includes('invitation made'); i++) {
      mail = await smtp.waitFor(victim, /Confirm your Garrison/);
      if (!mail.body.includes('invitation made')) await new Promise((r) => setTimeout(r, 250));
    }
    assert.match(mail.body, /another organization's invitation made/);
    await vic.goto(linkIn(mail, '/verify-email'));
    await vic.getByText('Your e-mail address is confirmed.').waitFor();
    const signIn = await server.request('POST', '/api/auth/login', { body: JSON.stringify({ email: victim, password: 'the owner password is long' }) });
    assert.equal(signIn.status, 200, signIn.text);
    const gone = await server.request('POST', '/api/auth/login', { body: JSON.stringify({ email: victim, password: 'the squatter password' }) });
    assert.equal(gone.status, 401, gone.text);
    assert.deepEqual(seen.problems, [], 'the browser saw problems');
    await other.close();
    noProblems();
  });

  await t.test('sign out and in again', async () => {
    await page.goto(server.base + '/');
    await settle();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((u) => u.pathname === '/login');
    await page.getByText('You have signed out.').waitFor();
    // By keyboard alone: the page moved focus to its content, so the first
    // Tab reaches the first field.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute('name')), 'email');
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(password);
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.pathname === '/');
    await settle();
    noProblems();
  });

  await t.test('a link cannot write on the sign-in page', async () => {
    const other = await browser.newContext({ ignoreHTTPSErrors: true });
    const anon = await other.newPage();
    await anon.goto(server.base + '/login?reason=' + encodeURIComponent('Your account is locked. Call 555-0100.'));
    await anon.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.equal(await anon.getByText('Call 555-0100').count(), 0, 'the address put words on the page');
    await other.close();
  });

  let key;
  await t.test('create an API key and use it', async () => {
    await open('/settings?tab=keys');
    await page.getByLabel('Name').fill('clinic sensor');
    await page.getByLabel('Scope').selectOption('write');
    await page.getByRole('button', { name: 'Generate key' }).click();
    const shown = page.getByRole('dialog').locator('pre');
    key = (await shown.textContent()).trim();
    assert.match(key, /^svc_live_[A-Za-z0-9]{32}$/);
    await page.getByRole('dialog').getByRole('button', { name: 'Done' }).click();
    // curl -H "Authorization: Bearer $KEY" …/api/events
    const events = await server.request('GET', '/api/events?limit=1', { token: key });
    assert.equal(events.status, 200, events.text);
    noProblems();
  });

  await t.test('ingest events with the key', async () => {
    const now = new Date().toISOString();
    const batch = { events: [
      { type: 'threat_detected', severity: 'critical', timestamp: now, source: 'edr', asset: 'ws-07', message: 'Emotet CnC beacon', indicator: '185.220.101.4' },
      { type: 'blocked_connection', severity: 'medium', timestamp: now, source: 'firewall', asset: 'ws-07', message: 'Outbound 4444 blocked', indicator: '185.220.101.4' },
      { type: 'policy_violation', severity: 'low', timestamp: now, source: 'dlp', asset: 'ws-02', message: 'USB storage mounted' },
    ] };
    const r = await server.request('POST', '/api/events', { token: key, body: batch });
    assert.equal(r.status, 201, r.text);
    await open('/events');
    await page.getByText('Emotet CnC beacon').first().waitFor();
    noProblems();
  });

  await t.test('resolve an alert, saying it was real, with a note', async () => {
    const open_ = await server.request('GET', '/api/alerts?status=open', { token: key });
    const alert = open_.body.data.find((a) => a.affected_asset === 'ws-07');
    assert.ok(alert, `no alert for ws-07: ${open_.text}`);
    await open('/alerts');
    await open('/alerts/' + alert.id);
    await page.getByRole('radio', { name: /True positive/ }).check();
    await page.getByLabel('Note').fill('Reimaged ws-07; beacon blocked at the firewall.');
    await page.getByRole('button', { name: 'Resolve' }).click();
    await page.getByText('Alert resolved as true positive.').waitFor();
    const after = await server.request('GET', '/api/alerts/' + alert.id, { token: key });
    assert.equal(after.body.data.status, 'resolved');
    assert.equal(after.body.data.disposition, 'true_positive');
    assert.equal(after.body.data.note, 'Reimaged ws-07; beacon blocked at the firewall.');
    // The list's filter form names its fields as the API does.
    await open('/alerts');
    await page.locator('select[name=status]').selectOption('resolved');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL((u) => u.searchParams.get('status') === 'resolved');
    await settle();
    await page.getByRole('link', { name: alert.title }).first().waitFor();
    watcher.expect(400, '/api/alerts');
    await open('/alerts?status=stale');
    await page.locator('select[name=status][aria-invalid=true]').waitFor();
    noProblems();
  });

  await t.test('run an agent to completion', async () => {
    await open('/agents');
    await page.getByRole('button', { name: 'Run Threat Researcher' }).click();
    await page.getByRole('dialog').getByLabel('Target').fill('185.220.101.4');
    await page.getByRole('dialog').getByRole('button', { name: 'Start run' }).click();
    await page.waitForURL((u) => u.pathname.startsWith('/agents/runs/'));
    await page.getByRole('heading', { name: 'Result' }).waitFor({ timeout: 60000 });
    await open('/threats');
    noProblems();
  });

  await t.test('submit a ticket and reply', async () => {
    await open('/tickets');
    await page.getByRole('button', { name: 'New ticket' }).click();
    const d = page.getByRole('dialog');
    await d.getByLabel('Subject').fill('Outlook keeps asking for a password');
    await d.getByLabel('Description').fill('Since this morning Outlook on the front-desk PC asks for the password every few minutes.');
    await d.getByRole('button', { name: 'Submit ticket' }).click();
    await page.waitForURL((u) => u.pathname.startsWith('/tickets/tkt_'));
    await settle();
    await page.getByLabel('Reply').fill('Reset the cached credentials; please try again.');
    await page.getByRole('button', { name: 'Send reply' }).click();
    await page.locator('.thread').getByText('Reset the cached credentials; please try again.').waitFor();
    noProblems();
  });

  await t.test('run an audit and open its report', async () => {
    await open('/compliance');
    await page.getByRole('button', { name: 'Run audit' }).click();
    await page.waitForURL((u) => u.pathname.startsWith('/compliance/reports/'));
    await page.getByRole('button', { name: 'Print' }).waitFor({ timeout: 60000 });
    noProblems();
  });

  await t.test('add a CVE', async () => {
    await open('/cve-watchlist');
    await page.getByLabel('CVE identifier').fill('CVE-2021-44228');
    await page.getByRole('button', { name: 'Watch this CVE' }).click();
    const link = page.getByRole('link', { name: 'CVE-2021-44228' }).first();
    await link.waitFor();
    await link.click();
    await page.waitForURL((u) => u.pathname.startsWith('/cve-watchlist/'));
    await settle();
    await open('/assets');
    noProblems();
  });

  await t.test('import prospects, score them, move a lead', async () => {
    await open('/leads');
    const csv = 'company,domain,vertical,region,employees,contact_name,contact_email\n' +
      'Bright Smiles Dental,brightsmiles.test,dental,Ohio,35,Dana Lee,dana@brightsmiles.test\n' +
      'Harbor Legal,harborlegal.test,legal,Maine,18,Sam Ortiz,sam@harborlegal.test\n';
    await page.locator('input[type=file]').setInputFiles({ name: 'prospects.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Import' }).click();
    await page.getByText(/2 rows read; 2 new/).waitFor();
    await open('/agents');
    await page.getByRole('button', { name: 'Run MSP Hunter' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Start run' }).click();
    await page.waitForURL((u) => u.pathname.startsWith('/agents/runs/'));
    await page.getByRole('heading', { name: 'Result' }).waitFor({ timeout: 60000 });
    await open('/leads');
    await page.locator('.card a').filter({ hasText: 'Bright Smiles Dental' }).first().click();
    await page.waitForURL((u) => u.pathname.startsWith('/leads/'));
    await settle();
    await page.locator('select[name=status]').selectOption('contacted');
    await page.getByLabel('Note').fill('Called Dana; demo booked for Tuesday.');
    await page.getByRole('button', { name: 'Change status' }).click();
    await page.getByText('Called Dana; demo booked for Tuesday.').first().waitFor();
    noProblems();
  });

  await t.test('revoke the key', async () => {
    await open('/settings?tab=keys');
    await page.getByRole('row', { name: /clinic sensor/ }).getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await page.getByRole('row', { name: /clinic sensor/ }).getByText('revoked').first().waitFor();
    const refused = await server.request('GET', '/api/events?limit=1', { token: key });
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error, 'Invalid API key');
    for (const tab of ['members', 'org', 'audit']) await open('/settings?tab=' + tab);
    noProblems();
  });

  await t.test('sign out; a stale cookie is refused', async () => {
    const before = await context.cookies();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((u) => u.pathname === '/login');
    assert.ok(!(await context.cookies()).some((c) => c.name === 'garrison_session'), 'the session cookie outlived sign-out');
    await context.addCookies(before.filter((c) => c.name.startsWith('garrison_')));
    watcher.expect(401, '/api/auth/me');
    await page.goto(server.base + '/alerts');
    await page.waitForURL((u) => u.pathname === '/login');
    await page.getByText('Token invalidated. Please log in again.').waitFor();
    assert.ok(!(await context.cookies()).some((c) => c.name === 'garrison_session'), 'the refused cookie was not cleared');
    noProblems();
  });
});
