// Builds and starts a Garrison for the browser suite on loopback, in a
// fresh data directory, mailing through the suite's SMTP server.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import https from 'node:https';

const root = path.resolve(import.meta.dirname, '../..');

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
}

// limits replaces the suite's generous rate limits (--limits): a bucket
// it leaves out keeps the server's default.
export async function startGarrison({ smtp, demo = false, limits = null }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'garrison-e2e-'));
  const bin = path.join(dir, 'garrison');
  execFileSync('go', ['build', '-o', bin, '.'], { cwd: root, stdio: 'inherit' });
  const port = await freePort();
  const base = `https://127.0.0.1:${port}`;
  const args = ['serve', '--data', path.join(dir, 'data'), '--addr', `127.0.0.1:${port}`, '--http-addr', '',
    '--base-url', base, '--smtp-addr', smtp.addr, '--tls-hosts', '127.0.0.1', '--default-plan', 'ultimate',
    // One browser on one address makes many requests a minute; the
    // limits themselves are tested in Go.
    '--limits', limits ?? 'jwt=100000/1m,auth=1000/1m,login=1000/1m,register=1000/1m,reset=1000/1m,apikey=100000/1m,agent-runs=1000/1m'];
  if (demo) args.push('--demo');
  const log = fs.openSync(path.join(dir, 'server.log'), 'w');
  const child = spawn(bin, args, { stdio: ['ignore', log, log] });
  const ca = await waitForCert(path.join(dir, 'data', 'tls-cert.pem'));
  await waitHealthy(base, ca);
  return {
    base, dir, ca,
    log: () => fs.readFileSync(path.join(dir, 'server.log'), 'utf8'),
    // request is curl against the API, trusting the server's own certificate.
    request: (method, p, { token, body, contentType = 'application/json' } = {}) => request(base, ca, method, p, token, body, contentType),
    stop: () => new Promise((resolve) => { child.once('exit', resolve); child.kill('SIGTERM'); }),
  };
}

async function waitForCert(file) {
  for (let i = 0; i < 200; i++) {
    if (fs.existsSync(file) && fs.statSync(file).size > 0) return fs.readFileSync(file);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the server made no certificate');
}

async function waitHealthy(base, ca) {
  for (let i = 0; i < 200; i++) {
    try {
      const r = await request(base, ca, 'GET', '/api/dashboard/health');
      if (r.status === 200) return;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the server did not become healthy');
}

function request(base, ca, method, p, token, body, contentType) {
  return new Promise((resolve, reject) => {
    const headers = {};
    if (token) headers.Authorization = 'Bearer ' + token;
    let data;
    if (body !== undefined) {
      data = typeof body === 'string' ? body : JSON.stringify(body);
      headers['Content-Type'] = contentType;
    }
    const req = https.request(base + p, { method, headers, ca, servername: undefined }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => {
        let json = null;
        try { json = JSON.parse(text); } catch { /* not JSON */ }
        resolve({ status: res.statusCode, headers: res.headers, body: json, text });
      });
    });
    req.on('error', reject);
    if (data) req.write(data);
    req.end();
  });
}
