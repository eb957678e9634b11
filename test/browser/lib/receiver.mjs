// A loopback webhook receiver for quell's webhook channel (signing off). It knows nothing of
// quell's code: it reads the JSON body, answers 500 to the first attempt of each open (so the
// timeline has a failed attempt and a retried send with one idempotency key) and 200 after.
import http from 'node:http';

export async function startReceiver() {
  const requests = []; // {at, idempotency_key, key, transition, status}
  const seen = new Set();
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => {
      let message = {};
      try { message = JSON.parse(body); } catch { /* recorded with empty fields */ }
      const ik = req.headers['idempotency-key'] || message.idempotency_key || '';
      const first = !seen.has(ik);
      seen.add(ik);
      const status = message.transition === 'open' && first ? 500 : 200;
      requests.push({at: new Date().toISOString(), idempotency_key: ik, key: message.key,
        transition: message.transition, status});
      res.writeHead(status, {'Content-Type': 'application/json'});
      res.end(status === 200 ? JSON.stringify({id: 'rcv-' + requests.length})
        : JSON.stringify({error: 'the receiver fails the first attempt of an open'}));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
