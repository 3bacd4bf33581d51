// Debian's Chromium driven by playwright-core, with a watch on everything
// that would mean a broken page: script errors, console errors, failed
// requests and error answers the test did not expect.
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(path.resolve(import.meta.dirname, '../../.ci/package.json'));
export const { chromium } = require('playwright-core');
export const axeSource = require('fs').readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

export function launch() {
  return chromium.launch({
    executablePath: chromiumPath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
}

// watch records a page's problems; expect(status, urlPart) allows one
// error answer the test provokes on purpose.
export function watch(page) {
  const problems = [];
  const allowed = [];
  page.on('pageerror', (e) => problems.push(`script error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const text = m.text();
    // The browser also reports the error answers it received; those are
    // judged by the response handler below.
    if (/Failed to load resource: the server responded with a status of/.test(text)) return;
    problems.push(`console error: ${text}`);
  });
  page.on('requestfailed', (r) => {
    const why = r.failure()?.errorText || '';
    if (why === 'net::ERR_ABORTED') return; // a page left while loading
    problems.push(`request failed: ${r.method()} ${r.url()} ${why}`);
  });
  page.on('response', (r) => {
    if (r.status() < 400) return;
    const i = allowed.findIndex((a) => a.status === r.status() && r.url().includes(a.url));
    if (i >= 0) { allowed.splice(i, 1); return; }
    problems.push(`error answer: ${r.status()} ${r.request().method()} ${r.url()}`);
  });
  return {
    problems,
    expect: (status, url) => allowed.push({ status, url }),
  };
}
