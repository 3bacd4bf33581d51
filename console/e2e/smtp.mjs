// A local SMTP server for the browser suite: it accepts every message on
// loopback and keeps it, so the suite can open the links Garrison mails.
import net from 'node:net';

export function startSMTP() {
  const messages = [];
  const waiters = [];
  const server = net.createServer((sock) => {
    let buf = '';
    let inData = false;
    let rcpt = [];
    sock.write('220 garrison-e2e ESMTP\r\n');
    sock.on('data', (chunk) => {
      buf += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buf.indexOf('\r\n.\r\n');
          if (end < 0) return;
          const raw = buf.slice(0, end).replace(/\r\n\.\./g, '\r\n.');
          buf = buf.slice(end + 5);
          inData = false;
          const [head, ...body] = raw.split('\r\n\r\n');
          const subject = (head.match(/^Subject: (.*)$/m) || [])[1] || '';
          const msg = { to: rcpt, subject, body: body.join('\r\n\r\n').replace(/\r\n/g, '\n') };
          messages.push(msg);
          for (const w of waiters.splice(0)) w();
          sock.write('250 queued\r\n');
          continue;
        }
        const nl = buf.indexOf('\r\n');
        if (nl < 0) return;
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') sock.write('250-garrison-e2e\r\n250 8BITMIME\r\n');
        else if (verb === 'MAIL') { rcpt = []; sock.write('250 ok\r\n'); }
        else if (verb === 'RCPT') { rcpt.push((line.match(/<([^>]*)>/) || [])[1]); sock.write('250 ok\r\n'); }
        else if (verb === 'DATA') { inData = true; sock.write('354 go ahead\r\n'); }
        else if (verb === 'QUIT') { sock.end('221 bye\r\n'); return; }
        else if (verb === 'RSET' || verb === 'NOOP') sock.write('250 ok\r\n');
        else sock.write('502 not implemented\r\n');
      }
    });
    sock.on('error', () => {});
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    addr: `127.0.0.1:${server.address().port}`,
    // waitFor resolves with the newest message to an address whose subject
    // matches, waiting up to timeout ms for it to arrive.
    async waitFor(to, subject, timeout = 15000) {
      const deadline = Date.now() + timeout;
      for (;;) {
        const m = messages.filter((x) => x.to.includes(to) && subject.test(x.subject)).pop();
        if (m) return m;
        if (Date.now() > deadline) throw new Error(`no mail to ${to} matching ${subject} (got: ${messages.map((x) => x.subject).join(', ')})`);
        await new Promise((r) => { waiters.push(r); setTimeout(r, 250); });
      }
    },
    close: () => server.close(),
  })));
}
