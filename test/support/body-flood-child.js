/**
 * An attacker apart from the test process: opens `count` connections to 127.0.0.1:`port` and POSTs a `mib` MiB body
 * on each (no key on half, a random unknown key on the others, alternating a bulk and a small-body route). Prints
 * `sending` once every request is under way, then the statuses as JSON: `reset` for a connection the server closed
 * while the body was still being written, before its answer could be read. argv: port, count, mib.
 */
const { request } = require('node:http');
const { randomBytes } = require('node:crypto');

const [port, count, mib] = process.argv.slice(2).map(Number);
const body = Buffer.alloc(mib * 1024 * 1024, 0x20);
body.write('{"list":[');

function post(i) {
  return new Promise((resolve) => {
    const headers = {
      'content-type': 'application/json',
      'content-length': String(body.length),
      'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0',
    };
    if (i % 4 >= 2) headers['x-api-key'] = `adn_${randomBytes(32).toString('base64url')}`;
    const path = i % 2 === 0 ? '/api/v2/openapi/user/profile/batch' : '/api/v2/openapi/ad/campaign/create';
    const req = request({ host: '127.0.0.1', port, method: 'POST', path, agent: false, headers }, (res) => {
      res.resume();
      resolve(res.statusCode);
      req.destroy();
    });
    // the server answers and closes before the body is all sent: the writes then fail, which is the point
    req.on('error', (error) => resolve(error.code === 'ECONNRESET' || error.code === 'EPIPE' ? 'reset' : `error ${error.code}`));
    req.end(body);
  });
}

const all = Array.from({ length: count }, (_, i) => post(i));
process.stdout.write('sending\n');
Promise.all(all).then((statuses) => process.stdout.write(`${JSON.stringify(statuses)}\n`));
