// Every page of the console with the demo organization: how fast its main
// content shows, whether axe-core finds serious or critical accessibility
// violations, and a screenshot at 1280 and 390 px wide. Also the session's
// defences as a browser sees them: a cross-site form cannot use the
// session, and page scripts cannot read it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { startSMTP } from './smtp.mjs';
import { startGarrison } from './server.mjs';
import { launch, watch, axeSource } from './browser.mjs';

const shots = path.join(import.meta.dirname, 'screenshots');
const widths = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } };

let smtp, server, browser, token, password;
// A Windows inventory as exported from "Programs and Features".
const inventoryCSV = 'Computer Name,Operating System,Display Name,Publisher,Display Version\n' +
  'ws-fin-07,Windows 10 Pro,Adobe Acrobat Reader,Adobe Systems Incorporated,9.3\n' +
  'ws-fin-07,Windows 10 Pro,Adobe Flash Player 15 ActiveX,Adobe Systems Incorporated,15.0.0.239\n' +
  'ws-fin-07,Windows 10 Pro,Microsoft Silverlight,Microsoft Corporation,5.1.10411.0\n' +
  'ws-fin-08,Windows 11 Pro,Mozilla Firefox (x64 en-US),Mozilla,128.0\n';
const pages = [];

async function api(method, p, body) {
  const r = await server.request(method, p, { token, body });
  assert.ok(r.status < 300, `${method} ${p}: ${r.status} ${r.text}`);
  return r.body;
}

before(async () => {
  fs.rmSync(shots, { recursive: true, force: true });
  fs.mkdirSync(shots, { recursive: true });
  smtp = await startSMTP();
  server = await startGarrison({ smtp, demo: true });
  password = server.log().match(/password: (\S+)/)[1];
  token = (await api('POST', '/api/auth/login', { email: 'demo@garrison.example', password })).token;
  // One of everything a detail page shows.
  const first = async (p) => (await api('GET', p)).data[0];
  const alert = await first('/api/alerts?limit=1');
  const ticket = await first('/api/tickets?limit=1') ||
    (await api('POST', '/api/tickets/submit', { subject: 'Printer offline', description: 'The front-desk printer is offline.' })).data;
  const report = await first('/api/compliance/audits?limit=1');
  const run = await first('/api/agents/threat-researcher/executions?limit=1') ||
    (await api('POST', '/api/agents/threat-researcher/execute', { target: 'example.com' })).data;
  const cve = await first('/api/cve-watchlist?limit=1') || (await api('POST', '/api/cve-watchlist', { cve_id: 'CVE-2021-44228' })).data;
  let lead = await first('/api/outreach/leads?limit=1');
  if (!lead) {
    await server.request('POST', '/api/outreach/prospects', { token, contentType: 'text/csv',
      body: 'company,domain,vertical,region,employees\nBright Smiles Dental,brightsmiles.test,dental,Ohio,35\n' });
    const hunt = (await api('POST', '/api/agents/msp-hunter/execute', {})).data;
    for (let i = 0; i < 100 && !lead; i++) {
      await new Promise((r) => setTimeout(r, 200));
      lead = await first('/api/outreach/leads?limit=1');
    }
    assert.ok(lead, `the hunter run ${hunt.agent_run_id || hunt.id} made no lead`);
  }
  // A Windows event a shipped Sigma rule fires on, and a beacon on two
  // hosts: an alert naming its rule, and an incident of two alerts.
  const sensor = (await api('POST', '/api/api-keys', { name: 'pages sensor', scope: 'write' })).data.key;
  const iso = (ms) => new Date(Date.now() - ms).toISOString();
  const windows = fs.readFileSync(path.join(import.meta.dirname, '../../handlers/testdata/sigma/sc_stop_service.jsonl'), 'utf8')
    .replace('2025-10-22T20:33:27.276702Z', iso(60000)).replace('"ar-win-1"', '"ws-fin-07"');
  const beacon = (host, ms) => JSON.stringify({ timestamp: iso(ms), event_type: 'alert', src_ip: host, src_port: 49152, dest_ip: '198.51.100.9',
    dest_port: 443, proto: 'TCP', alert: { action: 'allowed', signature_id: 2035000, signature: 'ET CNC Cobalt Strike Beacon Observed',
      category: 'A Network Trojan was detected', severity: 1 } });
  for (const [source, body] of [['windows', windows], ['suricata', beacon('10.0.0.5', 600000) + '\n' + beacon('10.0.0.6', 300000) + '\n']]) {
    const r = await server.request('POST', '/api/webhooks/' + source, { token: sensor, body, contentType: 'application/x-ndjson' });
    assert.equal(r.status, 201, `${source}: ${r.text}`);
  }
  const ruled = (await api('GET', '/api/alerts?limit=200')).data.find((a) => a.rule);
  assert.ok(ruled, 'no alert names its rule');
  const incident = (await api('GET', '/api/incidents?limit=200')).data.find((i) => i.attacker === '198.51.100.9');
  assert.ok(incident && incident.alert_count === 2, `the beacon's incident: ${JSON.stringify(incident)}`);
  // Findings: the repository's NVD sample imported by the appliance's
  // operator (the demo organization is not one), and an inventory whose
  // Acrobat Reader, Flash Player and Silverlight it knows to be vulnerable.
  const operator = await server.request('POST', '/api/auth/register', { body: { email: 'ops@msp.example', password: 'correct horse battery staple 9',
    name: 'Olga Operator', org: 'MSP Operations' } });
  assert.equal(operator.status, 201, `operator: ${operator.text}`);
  const nvd = fs.readFileSync(path.join(import.meta.dirname, '../../intel/testdata/nvd_sample.json'), 'utf8');
  const imported = await server.request('POST', '/api/intel/import', { token: operator.body.token, body: nvd, contentType: 'application/json' });
  assert.equal(imported.status, 200, `intel import: ${imported.text}`);
  const inventory = await server.request('POST', '/api/assets/import', { token, contentType: 'text/csv', body: inventoryCSV });
  assert.ok(inventory.status < 300, `inventory import: ${inventory.text}`);
  const exposed = inventory.body.data.assets.find((a) => a.hostname === 'ws-fin-07');
  const runID = run.agent_run_id || run.id;
  // The onboarding checklist, finished, for its own page.
  const onboarding = (await api('POST', '/api/agents/onboarding/execute', {})).data.agent_run_id;
  for (let i = 0; i < 100; i++) {
    if ((await api('GET', `/api/agents/onboarding/executions/${onboarding}`)).data.status === 'completed') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  pages.push(
    ['sign-in', '/login', false], ['register', '/register', false], ['forgot-password', '/forgot-password', false],
    ['reset-password', '/reset-password?token=not-a-real-token', false], ['verify-email', '/verify-email', false],
    ['dashboard', '/'], ['dashboard-7d', '/?range=7d'], ['events', '/events'], ['events-sorted', '/events?sort=severity&order=desc&page=2&range=24h'],
    ['incidents', '/incidents'], ['incident', '/incidents/' + incident.id], ['alert-with-rule', '/alerts/' + ruled.id],
    ['detection', '/detection'], ['detection-rule', '/detection/rules/' + ruled.rule.id],
    ['alerts', '/alerts'], ['alerts-open-by-asset', '/alerts?status=open&sort=asset&order=asc&refresh=60'], ['alert', '/alerts/' + alert.id], ['threats', '/threats'],
    ['agents', '/agents'], ['agent-run', `/agents/runs/${runID}?agent=threat-researcher`],
    ['onboarding-run', `/agents/runs/${onboarding}?agent=onboarding`], ['tickets', '/tickets'],
    ['ticket', '/tickets/' + ticket.id], ['compliance', '/compliance'], ['compliance-report', '/compliance/reports/' + (report.report_id || report.id)],
    ['cve-watchlist', '/cve-watchlist'], ['cve-entry', '/cve-watchlist/' + cve.id], ['assets', '/assets'],
    ['findings', '/findings'], ['asset-findings', '/assets?asset=' + exposed.id],
    ['leads', '/leads'], ['leads-list', '/leads?view=list'], ['lead', '/leads/' + lead.id], ['notifications', '/notifications'], ['settings-keys', '/settings?tab=keys'],
    ['settings-members', '/settings?tab=members'], ['settings-org', '/settings?tab=org'], ['settings-audit', '/settings?tab=audit'],
    ['not-found', '/no/such/page']);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  smtp?.close();
});

async function signIn(context) {
  const page = await context.newPage();
  await page.goto(server.base + '/login');
  await page.getByLabel('E-mail address').fill('demo@garrison.example');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => u.pathname === '/');
  await page.locator('main h1').first().waitFor();
  return page;
}

// States of a page a person opens (a dialog, the notifications panel):
// screenshotted and checked like the pages.
const states = [
  ['inventory-import-report', '/assets', async (page) => {
    await page.getByRole('button', { name: 'Import an inventory' }).click();
    await page.getByLabel('Inventory file').setInputFiles({ name: 'inventory.csv', mimeType: 'text/csv', buffer: Buffer.from(inventoryCSV.replace('9.3', '9.4')) });
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('status').getByText('CSV: 2 assets imported').waitFor();
  }],
  ['finding-decision-dialog', '/findings', async (page) => {
    await page.getByRole('link', { name: /^Finding CVE-/ }).first().click();
    await page.getByRole('dialog').getByRole('heading', { name: 'History' }).waitFor();
  }],
  ['alerts-resolve-dialog', '/alerts?status=open', async (page) => {
    await page.getByRole('checkbox', { name: 'Select all on this page' }).check();
    await page.getByRole('button', { name: 'Resolve…' }).click();
    await page.getByRole('dialog').getByText('This resolves').waitFor();
  }],
  ['alerts-assign-dialog', '/alerts?status=open', async (page) => {
    await page.locator('main tbody input[type=checkbox]').first().check();
    await page.getByRole('button', { name: 'Assign…' }).click();
    await page.getByRole('dialog').getByLabel('Assign to').waitFor();
  }],
  ['notifications-panel', '/events', async (page) => {
    await page.locator('header button.bell').click();
    await page.getByRole('region', { name: 'Notifications' }).locator('li, p.muted').first().waitFor();
  }],
  ['events-custom-range', '/events', async (page) => {
    await page.getByLabel('Time range').selectOption('custom');
  }],
];

async function settle(page) {
  await page.locator('main h1').first().waitFor();
  await page.waitForFunction(() => !document.querySelector('main .loading'), null, { timeout: 15000 });
}

test('every page: speed and screenshots at both widths', async () => {
  const timings = [];
  for (const [label, viewport] of Object.entries(widths)) {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport });
    // Measured in the page: when the last loading state in main gave way
    // to content, from the navigation's start.
    await context.addInitScript(() => {
      new MutationObserver(() => {
        const main = document.querySelector('main');
        if (main && main.querySelector('h1') && !main.querySelector('.loading')) window.__shown = performance.now();
      }).observe(document, { childList: true, subtree: true });
    });
    const page = await signIn(context);
    const w = watch(page);
    for (const [name, p, signedIn = true] of pages) {
      if (!signedIn) continue;
      // At desktop width each page is loaded three times: the first
      // visit, and the median of the three.
      const shown = [];
      for (let i = 0; i < (label === 'desktop' ? 3 : 1); i++) {
        await page.goto(server.base + p);
        await settle(page);
        shown.push(Math.round(await page.evaluate(() => window.__shown)));
      }
      if (label === 'desktop') timings.push([name, shown[0], [...shown].sort((a, b) => a - b)[1]]);
      await page.screenshot({ path: path.join(shots, `${name}-${viewport.width}.png`), fullPage: true });
    }
    for (const [name, p, act] of states) {
      await page.goto(server.base + p);
      await settle(page);
      await act(page);
      await page.screenshot({ path: path.join(shots, `${name}-${viewport.width}.png`), fullPage: true });
    }
    // The signed-out pages, signed out.
    const out = await browser.newContext({ ignoreHTTPSErrors: true, viewport });
    const anon = await out.newPage();
    const wa = watch(anon);
    for (const [name, p, signedIn = true] of pages) {
      if (signedIn) continue;
      await anon.goto(server.base + p);
      await settle(anon);
      await anon.screenshot({ path: path.join(shots, `${name}-${viewport.width}.png`), fullPage: true });
    }
    assert.deepEqual([...w.problems, ...wa.problems], [], `problems at ${viewport.width} px`);
    await out.close();
    await context.close();
  }
  console.log('\nmain content shown with the demo organization (ms from navigation start, measured in the page, full reload, loopback):');
  console.log(`  ${'page'.padEnd(20)} first  median of 3`);
  for (const [name, first, median] of timings) console.log(`  ${name.padEnd(20)} ${String(first).padStart(5)}  ${String(median).padStart(5)}`);
});

test('every page: no serious or critical accessibility violations (axe-core)', async () => {
  // axe is injected as a script, which the console's CSP rightly forbids;
  // this one context bypasses the CSP for that alone.
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: widths.desktop, bypassCSP: true });
  await signIn(context);
  const anon = await (await browser.newContext({ ignoreHTTPSErrors: true, viewport: widths.desktop, bypassCSP: true })).newPage();
  const page = context.pages()[0];
  const found = [];
  for (const [name, p, signedIn = true] of pages) {
    const pg = signedIn ? page : anon;
    await pg.goto(server.base + p);
    await settle(pg);
    await pg.addScriptTag({ content: axeSource });
    const result = await pg.evaluate(async () => {
      const r = await window.axe.run(document, { resultTypes: ['violations'] });
      return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
    });
    for (const v of result) found.push(`${name}: ${v}`);
  }
  for (const [name, p, act] of states) {
    await page.goto(server.base + p);
    await settle(page);
    await act(page);
    await page.addScriptTag({ content: axeSource });
    const result = await page.evaluate(async () => {
      const r = await window.axe.run(document, { resultTypes: ['violations'] });
      return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
    });
    for (const v of result) found.push(`${name}: ${v}`);
  }
  await context.close();
  assert.deepEqual(found, []);
});

test('a cross-site form cannot use the session', async () => {
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await signIn(context);
  assert.equal(await page.evaluate(() => document.cookie.includes('garrison_session')), false, 'a script can read the session');
  const before = (await api('GET', '/api/api-keys')).data.length;
  // Another origin's page, with a form aimed at the API. It is served over
  // HTTPS on the same host, so it is the same *site* and the browser does
  // send the SameSite=Strict cookie: only the server's own check (Origin
  // and Sec-Fetch-Site) stands between the form and a new admin key.
  const tlsFiles = { key: fs.readFileSync(path.join(server.dir, 'data', 'tls-key.pem')), cert: server.ca };
  const evil = https.createServer(tlsFiles, (req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end(`<form method="POST" action="${server.base}/api/api-keys" enctype="text/plain">
      <input name='{"name":"pwned","scope":"admin","x":"' value='"}'><button>win a prize</button></form>`);
  });
  await new Promise((r) => evil.listen(0, '127.0.0.1', r));
  const w = watch(page);
  w.expect(403, '/api/api-keys');
  await page.goto(`https://127.0.0.1:${evil.address().port}/`);
  const [answer] = await Promise.all([page.waitForResponse((r) => r.url().includes('/api/api-keys')), page.getByRole('button', { name: 'win a prize' }).click()]);
  assert.equal(answer.status(), 403, `the cross-origin post got ${answer.status()}`);
  assert.match(await answer.text(), /another site|cross/i, 'refused for another reason than its origin');
  assert.equal((await api('GET', '/api/api-keys')).data.length, before, 'the cross-site post created a key');
  evil.close();
  await context.close();
});

test('detection rules: a refused rule names its line and selects it; a set turned off says whose choice it is', async () => {
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await signIn(context);
  const w = watch(page);
  await page.goto(server.base + '/detection');
  await settle(page);
  const area = page.getByLabel('Sigma rule (YAML)');
  const rule = ['title: Firewall service stopped', 'id: 6f1d2c3b-0a4e-4d5f-9b8a-7c6d5e4f3a2b', 'author: Demo SOC', 'level: critical',
    'logsource:', '    category: process_creation', '    product: windows', 'detection:', '    selection:',
    '        CommandLine|sounds_like: mpssvc', '    condition: selection', ''].join('\n');
  await area.fill(rule);
  w.expect(400, '/api/detection-rules');
  await page.getByRole('button', { name: 'Check and add the rule' }).click();
  await page.locator('[data-field="yaml"] .field-error', { hasText: 'line 10: unknown modifier "sounds_like"' }).waitFor();
  const selected = await area.evaluate((a) => a.value.slice(a.selectionStart, a.selectionEnd));
  assert.equal(selected, '        CommandLine|sounds_like: mpssvc', 'the line at fault is not selected');
  await area.fill(rule.replace('sounds_like', 'contains'));
  await page.getByRole('button', { name: 'Check and add the rule' }).click();
  await page.waitForURL((u) => u.pathname === '/detection/rules/6f1d2c3b-0a4e-4d5f-9b8a-7c6d5e4f3a2b');
  await page.getByRole('heading', { name: /Firewall service stopped/ }).waitFor();
  await page.getByText('Your organization\'s own rule').first().waitFor();

  await page.goto(server.base + '/detection');
  await settle(page);
  const row = page.locator('main tr', { has: page.getByRole('link', { name: 'windows.wmi_event', exact: true }) });
  await row.getByRole('button', { name: 'Turn off' }).click();
  await page.getByText('the set windows.wmi_event is now off.').waitFor();
  await row.getByText('your choice of its set').waitFor();
  await row.getByRole('button', { name: 'Forget my choice' }).click();
  await row.getByText('the default: every rule runs').waitFor();
  assert.deepEqual(w.problems, []);
  await context.close();
});

test('findings: a risk accepted from the console leaves the open list with its reason and the date it reopens', async () => {
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await signIn(context);
  const w = watch(page);
  await page.goto(server.base + '/findings?cve_id=CVE-2013-3896');
  await settle(page);
  await page.getByRole('link', { name: 'Finding CVE-2013-3896 on ws-fin-07' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('heading', { name: 'History' }).waitFor();
  // A risk accepted without a reason is refused beside the field.
  w.expect(400, '/api/findings/');
  await dialog.getByRole('button', { name: 'Save decision' }).click();
  await dialog.locator('[data-field="reason"] .field-error', { hasText: 'reason' }).waitFor();
  await dialog.getByLabel('Reason').fill('Silverlight is removed with the March rollout');
  await dialog.getByRole('button', { name: 'Save decision' }).click();
  await page.getByRole('status').getByText('CVE-2013-3896 on ws-fin-07: Risk accepted.').waitFor();
  await page.getByText('No finding matches these filters.').waitFor();
  await page.goto(server.base + '/findings?status=accepted_risk&cve_id=CVE-2013-3896');
  await settle(page);
  await page.getByRole('link', { name: 'Finding CVE-2013-3896 on ws-fin-07' }).click();
  await dialog.getByRole('cell', { name: 'Silverlight is removed with the March rollout' }).waitFor();
  await dialog.getByText(/Risk accepted Silverlight is removed with the March rollout \(until /).waitFor();
  assert.deepEqual(w.problems, []);
  await context.close();
});
