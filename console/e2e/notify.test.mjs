// Alert notifications in a real browser (issue 30): an admin adds a
// Slack-compatible contact point pointing at a receiver on loopback, tests
// it and sees its answer in the row; adds a webhook and sees its signing
// secret once (the test's signature checks out with it), never after a
// reload; routes critical alerts to the chat with a rule; sends a critical
// event with an API key and finds the delivery in the log, with its alert;
// and cannot delete a contact point a rule uses, in words. A member sees
// why the page is not theirs. axe-core checks every view; screenshots go
// to screenshots/ (notify-*; in a run of the whole suite, pages.test.mjs,
// which runs after this file, empties that directory: run this file alone
// to keep them).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { startSMTP } from './smtp.mjs';
import { startGarrison } from './server.mjs';
import { launch, watch, axeSource } from './browser.mjs';

const shots = path.join(import.meta.dirname, 'screenshots');
const password = 'correct horse battery staple';
const nia = 'nia@northwind.test', max = 'max@northwind.test';

let smtp, server, browser, receiver, hooks, token, writeKey;
const received = []; // every request the receiver took: {path, headers, body}

async function api(method, p, body, as = token) {
  const r = await server.request(method, p, { token: as, body });
  assert.ok(r.status < 300, `${method} ${p}: ${r.status} ${r.text}`);
  return r.body;
}

// waitFor polls until fn returns something, for up to 15 s.
async function waitFor(fn, what) {
  for (let i = 0; i < 150; i++) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`timed out waiting for ${what}`);
}

before(async () => {
  fs.mkdirSync(shots, { recursive: true });
  // The receivers: a plain-HTTP server on loopback, answering 200 "ok".
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      received.push({ path: req.url, headers: req.headers, body });
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('ok');
    });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hooks = `http://127.0.0.1:${receiver.address().port}`;
  smtp = await startSMTP();
  // The server takes receivers on loopback only when told to
  // (--notify-allow-loopback, here from its environment variable).
  process.env.GARRISON_NOTIFY_ALLOW_LOOPBACK = 'true';
  try {
    server = await startGarrison({ smtp });
  } finally {
    delete process.env.GARRISON_NOTIFY_ALLOW_LOOPBACK;
  }
  token = (await api('POST', '/api/auth/register', { email: nia, password, name: 'Nia Admin', org: 'Northwind IT' }, null)).token;
  const mail = await smtp.waitFor(nia, /Confirm your Garrison/);
  await api('POST', '/api/auth/verify-email', { token: mail.body.match(/verify-email\?token=([A-Za-z0-9_-]+)/)[1] }, null);
  writeKey = (await api('POST', '/api/api-keys', { name: 'edr sensor', scope: 'write' })).data.key;
  const invite = (await api('POST', '/api/org/invites', { email: max, role: 'member' })).data;
  await api('POST', '/api/auth/register', { email: max, password, name: 'Max Member', invite_token: invite.token }, null);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  smtp?.close();
  receiver?.close();
});

async function settle(page) {
  await page.locator('main h1').first().waitFor();
  await page.waitForFunction(() => !document.querySelector('main .loading'), null, { timeout: 15000 });
}

async function signIn(email, viewport = { width: 1280, height: 900 }) {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport });
  // axe-core comes in before the page's own scripts, so the console's CSP
  // (Trusted Types included) stays on and is tested too.
  await context.addInitScript({ content: axeSource });
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

async function axe(page) {
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
  });
}

const shot = (page, name) => page.screenshot({ path: path.join(shots, `notify-${name}.png`), fullPage: true });
const row = (page, name) => page.locator('main table tbody tr').filter({ has: page.getByRole('cell', { name, exact: true }) });

// One signed-in admin for the whole story, as a person would go through it.
let admin;

test('Settings leads an admin to the contact points, which pass axe', async () => {
  admin = await signIn(nia);
  const { page, w } = admin;
  await open(page, '/settings');
  await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Alert notifications' }).click();
  await page.waitForURL((u) => u.pathname === '/settings/notifications');
  await settle(page);
  assert.equal(await page.locator('main h1').textContent(), 'Alert notifications');
  assert.equal(await page.getByRole('navigation', { name: 'Alert notification sections' }).locator('[aria-current=page]').textContent(), 'Contact points');
  // Every organization starts with its admins by mail.
  await row(page, 'Admins by e-mail').waitFor();
  assert.match(await row(page, 'Admins by e-mail').innerText(), /all admins/);
  // The form follows the kind: mail asks for addresses and roles, chat for a URL.
  assert.ok(await page.getByLabel('E-mail addresses').isVisible());
  assert.equal(await page.getByLabel('Incoming webhook URL').count(), 0);
  await page.getByLabel('Kind').selectOption('pagerduty');
  assert.ok(await page.getByLabel('Routing key').isVisible());
  assert.ok(await page.getByLabel('Events API URL (optional)').isVisible());
  assert.equal(await page.getByLabel('E-mail addresses').isVisible(), false);
  assert.deepEqual(await axe(page), []);
  assert.deepEqual(w.problems, []);
});

test('a Slack contact point, tested: the receiver got the text and the row shows its answer', async () => {
  const { page, w } = admin;
  await page.getByLabel('Name').fill('Ops chat');
  await page.getByLabel('Kind').selectOption('slack');
  await page.getByLabel('Incoming webhook URL').fill(hooks + '/services/T0001/B0001/s3cr3t');
  await page.getByRole('button', { name: 'Add contact point' }).click();
  await page.getByRole('status').filter({ hasText: '“Ops chat” was added' }).waitFor();
  const chat = row(page, 'Ops chat');
  assert.match(await chat.innerText(), /Slack/);
  assert.match(await chat.innerText(), /127\.0\.0\.1:\d+/);
  assert.doesNotMatch(await chat.innerText(), /s3cr3t/, 'the URL\'s path (its secret) is not shown');
  assert.match(await chat.innerText(), /No alert delivered yet/);

  // By keyboard: Enter on Test; the focus stays on it when the row is redrawn.
  await chat.getByRole('button', { name: 'Test “Ops chat”' }).focus();
  await page.keyboard.press('Enter');
  await chat.locator('.test-results').waitFor();
  assert.match(await chat.locator('.test-results').innerText(), /✓ Delivered · 127\.0\.0\.1(:\d+)? · HTTP 200/);
  assert.match(await chat.locator('.test-results').innerText(), /“ok”/);
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'Test “Ops chat”');
  await page.getByRole('status').filter({ hasText: 'Test of “Ops chat”: delivered.' }).waitFor();
  const got = received.find((r) => r.path === '/services/T0001/B0001/s3cr3t');
  assert.ok(got, 'the receiver got no test message');
  assert.match(got.headers['content-type'], /^application\/json/);
  assert.equal(typeof JSON.parse(got.body).text, 'string');
  assert.ok(JSON.parse(got.body).text.length > 0);
  assert.match(await chat.innerText(), /No alert delivered yet/, 'a test is not an alert delivered');
  await shot(page, 'channels-1280');
  assert.deepEqual(w.problems, []);
});

test('a webhook\'s signing secret is shown once, signs the test, and is gone after a reload', async () => {
  const { page, w } = admin;
  await page.getByLabel('Name').fill('SIEM hook');
  await page.getByLabel('Kind').selectOption('webhook');
  await page.getByLabel('Receiver URL').fill(hooks + '/siem');
  await page.getByRole('button', { name: 'Add contact point' }).click();
  const d = page.getByRole('dialog', { name: 'Signing secret of “SIEM hook”' });
  await d.waitFor();
  const secret = await d.getByLabel('Signing secret').inputValue();
  assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/);
  assert.equal(await d.getByLabel('Signing secret').getAttribute('readonly'), '');
  assert.match(await d.innerText(), /will not be shown again/);
  assert.match(await d.innerText(), /webhook-signature/);
  assert.ok(await d.getByRole('button', { name: 'Copy secret' }).isVisible());
  assert.deepEqual(await axe(page), []);
  await shot(page, 'webhook-secret-1280');
  await d.getByRole('button', { name: 'Done' }).click();

  // The test message is signed as the dialog says (Standard Webhooks).
  const hook = row(page, 'SIEM hook');
  await hook.getByRole('button', { name: 'Test “SIEM hook”' }).click();
  await hook.locator('.test-results').filter({ hasText: '✓ Delivered' }).waitFor();
  const got = received.find((r) => r.path === '/siem');
  const id = got.headers['webhook-id'], ts = got.headers['webhook-timestamp'];
  const mac = crypto.createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(`${id}.${ts}.${got.body}`).digest('base64');
  assert.ok(got.headers['webhook-signature'].split(' ').includes('v1,' + mac), 'the signature does not verify with the secret shown');

  // Never again: not after a reload, not in the API.
  await page.reload();
  await settle(page);
  await row(page, 'SIEM hook').waitFor();
  assert.equal((await page.content()).includes(secret), false);
  assert.equal(JSON.stringify(await api('GET', '/api/notification-channels')).includes(secret), false);

  // Rotating shows a new one, once.
  await row(page, 'SIEM hook').getByRole('button', { name: 'Rotate secret “SIEM hook”' }).click();
  await page.getByRole('dialog', { name: 'Rotate the secret of “SIEM hook”' }).getByRole('button', { name: 'Rotate secret' }).click();
  const r = page.getByRole('dialog', { name: 'Signing secret of “SIEM hook”' });
  await r.waitFor();
  const fresh = await r.getByLabel('Signing secret').inputValue();
  assert.match(fresh, /^whsec_/);
  assert.notEqual(fresh, secret);
  await r.getByRole('button', { name: 'Done' }).click();
  assert.deepEqual(w.problems, []);
});

test('a routing rule sends critical alerts to the chat; its form shows the API\'s refusals beside the fields', async () => {
  const { page, w } = admin;
  await page.getByRole('navigation', { name: 'Alert notification sections' }).getByRole('link', { name: 'Routing rules' }).click();
  await page.waitForURL((u) => u.pathname === '/settings/notifications/rules');
  await settle(page);
  // The default rule, in words.
  const def = row(page, 'Critical and high alerts');
  await def.waitFor();
  assert.match(await def.innerText(), /Admins by e-mail/);

  const add = page.locator('section').filter({ has: page.getByRole('heading', { name: 'Add a rule' }) });
  await add.getByLabel('Name').fill('Critical to chat');
  await add.getByLabel('Minimum severity').selectOption('critical');
  await add.getByRole('group', { name: 'Send to' }).getByLabel('Ops chat (Slack)').check();
  await add.getByLabel('Group alerts within (seconds)').fill('0');
  await add.getByLabel('Sources').fill('edr, firewall');
  await add.getByRole('group', { name: 'Alert categories' }).getByLabel('Malware').check();
  await add.getByRole('group', { name: 'Escalate to' }).getByLabel('SIEM hook (Webhook)').check();
  // Quiet hours need both ends: the API says so, beside the quiet hours.
  await add.getByLabel('From').fill('22:00');
  w.expect(400, '/api/notification-rules');
  await add.getByRole('button', { name: 'Add rule' }).click();
  const quiet = add.locator('[data-field="quiet_hours"] .field-error').filter({ hasText: /./ });
  await quiet.waitFor();
  assert.match(await quiet.innerText(), /quiet_hours\.end/);
  await add.getByLabel('From').fill('');
  await add.getByRole('button', { name: 'Add rule' }).click();
  await page.getByRole('status').filter({ hasText: '“Critical to chat” was added.' }).waitFor();
  const rule = row(page, 'Critical to chat');
  const text = await rule.innerText();
  assert.match(text, /Enabled/i);
  assert.match(text, /Critical\s+only/i);
  assert.match(text, /Categories: malware/);
  assert.match(text, /Sources: edr, firewall/);
  assert.match(text, /Ops chat/);
  assert.match(text, /Each alert alone/);
  assert.match(text, /After 15 min, at most 3 times: SIEM hook/);
  assert.deepEqual(await axe(page), []);

  // Edit: PUT replaces it whole, so what is not touched stays.
  await rule.getByRole('button', { name: 'Edit “Critical to chat”' }).click();
  const d = page.getByRole('dialog', { name: 'Edit “Critical to chat”' });
  assert.equal(await d.getByLabel('Sources').inputValue(), 'edr, firewall');
  assert.ok(await d.getByRole('group', { name: 'Send to' }).getByLabel('Ops chat (Slack)').isChecked());
  await d.getByRole('group', { name: 'Alert categories' }).getByLabel('Malware').uncheck();
  await d.getByLabel('Sources').fill('');
  await d.getByLabel('From').fill('22:00');
  await d.getByLabel('Until').fill('06:30');
  await d.getByLabel('Time zone').fill('Europe/Berlin');
  assert.deepEqual(await axe(page), []);
  await shot(page, 'rule-edit-1280');
  await d.getByRole('button', { name: 'Save rule' }).click();
  await page.getByRole('status').filter({ hasText: '“Critical to chat” was saved.' }).waitFor();
  const edited = await row(page, 'Critical to chat').innerText();
  assert.match(edited, /Any alert/);
  assert.match(edited, /22:00–06:30\s+Europe\/Berlin/);
  assert.match(edited, /SIEM hook/);
  const saved = (await api('GET', '/api/notification-rules')).data.find((r) => r.name === 'Critical to chat');
  assert.deepEqual(saved.channels.length, 1);
  assert.equal(saved.min_severity, 'critical');
  await shot(page, 'rules-1280');
  assert.deepEqual(w.problems, []);
});

test('a critical event reaches the chat, and the delivery log shows it with its alert', async () => {
  const { page, w } = admin;
  const before = received.length;
  const r = await server.request('POST', '/api/events', { token: writeKey, body: { events: [
    { type: 'threat_detected', severity: 'critical', timestamp: new Date().toISOString(), source: 'edr', asset: 'nw-ws-07', message: 'Emotet beacon', indicator: '185.220.101.4' },
  ] } });
  assert.equal(r.status, 201, r.text);
  // Critical is sent at once, even in quiet hours.
  const msg = await waitFor(() => received.slice(before).find((x) => x.path.startsWith('/services/') && /nw-ws-07|Emotet/.test(x.body)), 'the alert in the chat');
  assert.equal(typeof JSON.parse(msg.body).text, 'string');

  await page.getByRole('navigation', { name: 'Alert notification sections' }).getByRole('link', { name: 'Delivery log' }).click();
  await page.waitForURL((u) => u.pathname === '/settings/notifications/deliveries');
  await settle(page);
  await page.getByLabel('Contact point').selectOption({ label: 'Ops chat' });
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.waitForURL((u) => u.searchParams.has('channel_id'));
  await settle(page);
  const log = page.locator('main table tbody tr');
  const opened = log.filter({ hasText: 'Alert opened' });
  await waitFor(async () => {
    if (await opened.count()) return true;
    await page.reload();
    await settle(page);
    return false;
  }, 'the delivery in the log');
  const line = await opened.first().innerText();
  assert.match(line, /Ops chat/);
  assert.match(line, /Delivered/i);
  assert.match(line, /Rule: Critical to chat/);
  assert.equal(await log.filter({ has: page.getByRole('cell', { name: 'Test', exact: true }) }).count(), 1, 'the test is in the log too');
  assert.deepEqual(await axe(page), []);
  await shot(page, 'deliveries-1280');

  // Status filter: nothing failed.
  await page.getByLabel('Status').selectOption('failed');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.waitForURL((u) => u.searchParams.get('status') === 'failed');
  await settle(page);
  await page.getByText('No deliveries match these filters.').waitFor();
  await page.goBack();
  await settle(page);

  // The alert link opens the alert.
  await opened.first().getByRole('link', { name: /^Alert/ }).click();
  await page.waitForURL((u) => /^\/alerts\/alr_/.test(u.pathname));
  await settle(page);
  await page.getByText('nw-ws-07').first().waitFor();
  assert.deepEqual(w.problems, []);
});

test('a contact point a rule uses cannot be deleted, and the dialog says which rule', async () => {
  const { page, w } = admin;
  await open(page, '/settings/notifications');
  assert.match(await row(page, 'Ops chat').innerText(), /Last delivered/, 'the alert delivered is the contact point\'s status');
  await row(page, 'Ops chat').getByRole('button', { name: 'Delete “Ops chat”' }).click();
  const d = page.getByRole('dialog', { name: 'Delete “Ops chat”' });
  w.expect(409, '/api/notification-channels/');
  await d.getByRole('button', { name: 'Delete contact point' }).click();
  await d.getByRole('alert').waitFor();
  assert.match(await d.getByRole('alert').innerText(), /used by the rule "Critical to chat"/);
  assert.deepEqual(await axe(page), []);
  await shot(page, 'delete-conflict-1280');
  await d.getByRole('button', { name: 'Cancel' }).click();
  await row(page, 'Ops chat').waitFor();

  // One no rule names goes.
  await page.getByLabel('Name').fill('Spare pager');
  await page.getByLabel('Kind').selectOption('pagerduty');
  await page.getByLabel('Routing key').fill('R0UT1NGKEY0123456789abcdefABCDEF');
  await page.getByRole('button', { name: 'Add contact point' }).click();
  await row(page, 'Spare pager').waitFor();
  assert.match(await row(page, 'Spare pager').innerText(), /events\.pagerduty\.com/);
  await row(page, 'Spare pager').getByRole('button', { name: 'Delete “Spare pager”' }).click();
  await page.getByRole('dialog', { name: 'Delete “Spare pager”' }).getByRole('button', { name: 'Delete contact point' }).click();
  await page.getByRole('status').filter({ hasText: '“Spare pager” was deleted.' }).waitFor();
  assert.equal(await row(page, 'Spare pager').count(), 0);
  assert.deepEqual(w.problems, []);
});

test('a suppression keeps matching events from alerting until it is ended', async () => {
  const { page, w } = admin;
  await open(page, '/settings/notifications/suppressions');
  await page.getByLabel('Asset').fill('nw-scanner');
  await page.getByLabel('Reason').fill('Our own weekly scan');
  await page.getByRole('button', { name: 'Suppress' }).click();
  await page.getByRole('status').filter({ hasText: 'Suppressed' }).waitFor();
  const alertsBefore = (await api('GET', '/api/alerts?limit=200')).data.length;
  const r = await server.request('POST', '/api/events', { token: writeKey, body: { events: [
    { type: 'threat_detected', severity: 'high', timestamp: new Date().toISOString(), source: 'ids', asset: 'nw-scanner', message: 'ET SCAN Nmap' },
  ] } });
  assert.equal(r.status, 201, r.text);
  assert.equal((await api('GET', '/api/alerts?limit=200')).data.length, alertsBefore, 'a suppressed event opened an alert');
  await open(page, '/settings/notifications/suppressions');
  const sup = page.locator('main table tbody tr').filter({ hasText: 'nw-scanner' });
  assert.match(await sup.innerText(), /Our own weekly scan[\s\S]*1$/m);
  assert.deepEqual(await axe(page), []);
  await shot(page, 'suppressions-1280');
  await sup.getByRole('button', { name: /End now/ }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'End now' }).click();
  await page.getByRole('status').filter({ hasText: 'The suppression was ended.' }).waitFor();
  assert.match(await sup.innerText(), /Ended/);
  assert.deepEqual(w.problems, []);
});

test('the views at phone width', async () => {
  const { context, page, w } = await signIn(nia, { width: 390, height: 844 });
  for (const [p, name] of [['/settings/notifications', 'channels-390'], ['/settings/notifications/rules', 'rules-390'], ['/settings/notifications/deliveries', 'deliveries-390']]) {
    await open(page, p);
    await page.locator('main table').first().waitFor();
    assert.deepEqual(await axe(page), [], p);
    await shot(page, name);
  }
  assert.deepEqual(w.problems, []);
  await context.close();
});

test('a member is told the page is the admins\', not shown a broken one', async () => {
  const { context, page, w } = await signIn(max);
  await open(page, '/settings');
  assert.equal(await page.getByRole('link', { name: 'Alert notifications' }).count(), 0);
  for (const p of ['/settings/notifications', '/settings/notifications/rules', '/settings/notifications/deliveries']) {
    await open(page, p);
    assert.equal(await page.locator('main h1').textContent(), 'Alert notifications');
    assert.match(await page.locator('main').innerText(), /Only the organization's admins choose where alerts are sent/);
    assert.equal(await page.locator('main table, main form').count(), 0);
  }
  assert.deepEqual(await axe(page), []);
  await shot(page, 'member-1280');
  assert.deepEqual(w.problems, [], 'a member\'s page asked the admin API');
  await context.close();
  await admin.context.close();
});
