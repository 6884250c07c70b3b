import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';
import {
  OutboundError, type OutboundFailure, closeSharedGuardedAgents, createGuardedAgent, outboundRequest, sharedGuardedAgent,
} from '../src/http/outbound.ts';
import {
  type HostResolver, type ResolvedAddress, checkOutboundUrl, judgeAddress, parseAllowList,
} from '../src/http/ssrf-guard.ts';

const USER_AGENT = 'Jobsite-Test/1.0';
const LOOPBACK = parseAllowList(['127.0.0.0/8']);

/** A resolver whose answers the test changes between registration and delivery. */
function fakeDns(table: Record<string, string[]>): HostResolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { calls });
}

interface Receiver {
  port: number;
  base: string;
  requests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[];
  connections: number;
  close(): Promise<void>;
}

async function startReceiver(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<Receiver> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      receiver.requests.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
      handler(req, res);
    });
  });
  server.on('connection', () => { receiver.connections++; });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const receiver: Receiver = {
    port,
    base: `http://127.0.0.1:${port}`,
    requests: [],
    connections: 0,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  return receiver;
}

async function refusedWith(code: OutboundFailure, promise: Promise<unknown>): Promise<OutboundError> {
  const err = await promise.then(() => assert.fail(`expected ${code}`), (e: unknown) => e);
  assert.ok(err instanceof OutboundError, `expected an OutboundError, got ${String(err)}`);
  assert.equal(err.code, code, err.message);
  return err;
}

describe('checkOutboundUrl', () => {
  const refusedLiterals: [string, RegExp][] = [
    ['http://127.0.0.1/', /loopback/],
    ['http://127.255.255.254:8080/hook', /loopback/],
    ['http://10.1.2.3/', /private-network/],
    ['http://172.16.0.1/', /private-network/],
    ['http://172.31.255.255/', /private-network/],
    ['http://192.168.1.1/', /private-network/],
    ['http://169.254.169.254/latest/meta-data/', /link-local/],
    ['http://100.64.0.1/', /carrier-grade NAT/],
    ['http://224.0.0.1/', /multicast/],
    ['http://255.255.255.255/', /broadcast/],
    ['http://0.0.0.0/', /unspecified/],
    ['http://0.1.2.3/', /unspecified/],
    ['http://192.0.0.8/', /reserved/],
    ['http://192.0.2.1/', /reserved/], // TEST-NET-1 documentation
    ['http://198.18.0.1/', /reserved/], // benchmarking
    ['http://198.51.100.7/', /reserved/],
    ['http://203.0.113.9/', /reserved/],
    ['http://240.0.0.1/', /reserved/],
    ['http://[::1]/', /loopback/],
    ['http://[::]/', /unspecified/],
    ['http://[fc00::1]/', /unique local/],
    ['http://[fd12:3456::1]:8443/', /unique local/],
    ['http://[fe80::1]/', /link-local/],
    ['http://[ff02::1]/', /multicast/],
    ['http://[2001:db8::1]/', /reserved/],
    ['http://[3fff::1]/', /reserved/],
    ['http://[100::1]/', /discard/],
    ['http://[::7f00:1]/', /global unicast/], // IPv4-compatible, deprecated
    ['http://[::ffff:127.0.0.1]/', /IPv4-mapped address of 127\.0\.0\.1, which is a loopback/],
    ['http://[::ffff:10.0.0.1]/', /IPv4-mapped address of 10\.0\.0\.1/],
    ['http://[::ffff:169.254.169.254]/', /IPv4-mapped .* link-local/],
    ['http://[::ffff:0:10.0.0.1]/', /rfc6145/], // IPv4-translated
    ['http://[64:ff9b::127.0.0.1]/', /NAT64 address of 127\.0\.0\.1/],
    ['http://[64:ff9b::192.168.0.1]/', /NAT64 address of 192\.168\.0\.1/],
    ['http://[64:ff9b:1::8.8.8.8]/', /local-use NAT64/],
    ['http://[2002:7f00:1::1]/', /6to4 address of 127\.0\.0\.1/],
    ['http://[2002:c0a8:101::1]/', /6to4 address of 192\.168\.1\.1/],
    // Teredo: server 65.54.227.120 in clear, client 10.0.0.1 with its bits inverted.
    ['http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/', /Teredo address of 10\.0\.0\.1/],
    ['http://[2001:0:0a00:0001:8000:63bf:b7f7:f7f7]/', /Teredo address of 10\.0\.0\.1/],
  ];
  for (const [url, why] of refusedLiterals) {
    it(`refuses ${url}`, async () => {
      const check = await checkOutboundUrl(url);
      assert.equal(check.ok, false);
      assert.ok(!check.ok);
      assert.equal(check.code, 'ssrf_blocked');
      assert.match(check.reason, why);
      assert.match(check.reason, /only public addresses are allowed unless the operator allows the range with JOBSITE_WEBHOOK_ALLOW_PRIVATE/);
    });
  }

  it('judges the address WHATWG URL makes of decimal, octal, hex and short IPv4 forms', async () => {
    const forms: [string, string][] = [
      ['http://2130706433/', '127.0.0.1'],
      ['http://0x7f.1/', '127.0.0.1'],
      ['http://0x7F000001/', '127.0.0.1'],
      ['http://017700000001/', '127.0.0.1'],
      ['http://0177.0.0.1/', '127.0.0.1'],
      ['http://127.1/', '127.0.0.1'],
      ['http://0/', '0.0.0.0'],
      ['http://0x0a.0.0.1/', '10.0.0.1'],
      ['http://3232235777/', '192.168.1.1'],
      ['http://0xa9.0xfe.0xa9.0xfe/', '169.254.169.254'],
    ];
    for (const [url, normalised] of forms) {
      assert.equal(new URL(url).hostname, normalised, url);
      const check = await checkOutboundUrl(url);
      assert.ok(!check.ok, url);
      assert.equal(check.code, 'ssrf_blocked', url);
      assert.match(check.reason, new RegExp(`^The address ${normalised.replaceAll('.', '\\.')} is `), url);
    }
  });

  it('accepts public addresses, including IPv6 forms that carry a public IPv4', async () => {
    for (const url of [
      'http://8.8.8.8/', 'https://1.1.1.1:8443/hook?x=1', 'http://134744072/', 'http://[2001:4860:4860::8888]/',
      'http://[::ffff:8.8.8.8]/', 'http://[64:ff9b::8.8.8.8]/', 'http://[2002:808:808::1]/',
      'http://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/',
    ]) {
      const check = await checkOutboundUrl(url);
      assert.ok(check.ok, `${url}: ${check.ok ? '' : check.reason}`);
      assert.equal(check.url.href, new URL(url).href);
    }
  });

  it('refuses every scheme but http and https', async () => {
    for (const url of ['ftp://8.8.8.8/file', 'file:///etc/passwd', 'gopher://8.8.8.8/', 'ws://8.8.8.8/', 'javascript:alert(1)',
      'data:text/plain,hi']) {
      const check = await checkOutboundUrl(url);
      assert.ok(!check.ok, url);
      assert.equal(check.code, 'invalid_url');
      assert.match(check.reason, /^Only http and https URLs are allowed \(got [a-z]+\)\.$/);
    }
  });

  it('refuses credentials in the URL', async () => {
    for (const url of ['http://user:pass@8.8.8.8/', 'https://user@example.com/', 'https://:secret@8.8.8.8/']) {
      const check = await checkOutboundUrl(url);
      assert.ok(!check.ok, url);
      assert.equal(check.code, 'invalid_url');
      assert.match(check.reason, /must not contain a user name or password/);
    }
  });

  it('refuses what is not an absolute URL', async () => {
    for (const url of ['not a url', '/relative/path', 'http://', 'http://[::1/', 'http://1.2.3.4.5/', '']) {
      const check = await checkOutboundUrl(url);
      assert.ok(!check.ok, url);
      assert.equal(check.code, 'invalid_url');
      assert.equal(check.reason, 'The URL is not a valid absolute URL.');
    }
  });

  it('refuses a host that does not resolve', async () => {
    const real = await checkOutboundUrl('https://no-such-host.invalid/hook');
    assert.ok(!real.ok);
    assert.equal(real.code, 'dns_failure');
    assert.match(real.reason, /^The host no-such-host\.invalid could not be resolved \(/);

    const empty = await checkOutboundUrl('https://empty.test/', undefined, async () => []);
    assert.ok(!empty.ok);
    assert.equal(empty.reason, 'The host empty.test could not be resolved (no addresses).');
  });

  it('resolves names and refuses when any one address is not public', async () => {
    const dns = fakeDns({ 'public.test': ['93.184.216.34', '2606:2800:220:1::248'], 'mixed.test': ['93.184.216.34', '10.0.0.7'] });
    const good = await checkOutboundUrl('https://public.test/hook', undefined, dns);
    assert.ok(good.ok);
    assert.deepEqual(good.addresses, ['93.184.216.34', '2606:2800:220:1::248']);
    const mixed = await checkOutboundUrl('https://mixed.test/hook', undefined, dns);
    assert.ok(!mixed.ok);
    assert.equal(mixed.reason, 'The host mixed.test resolves to 10.0.0.7, which is a private-network address;' +
      ' only public addresses are allowed unless the operator allows the range with JOBSITE_WEBHOOK_ALLOW_PRIVATE.');
  });

  it('refuses localhost through the system resolver', async () => {
    const check = await checkOutboundUrl('http://localhost:3000/');
    assert.ok(!check.ok);
    assert.match(check.reason, /^The host localhost resolves to .*loopback/);
  });

  it('allows what the allow list contains, and only that', async () => {
    for (const url of ['http://127.0.0.1:3000/', 'http://2130706433/', 'http://0x7f.1/', 'http://[::ffff:127.0.0.1]/',
      'http://[64:ff9b::127.0.0.1]/']) {
      const check = await checkOutboundUrl(url, LOOPBACK);
      assert.ok(check.ok, url);
    }
    for (const url of ['http://10.0.0.1/', 'http://[::1]/', 'http://169.254.169.254/']) {
      assert.equal((await checkOutboundUrl(url, LOOPBACK)).ok, false, url);
    }
    const ula = parseAllowList(['fd00::/8', '10.20.0.0/16']);
    assert.ok((await checkOutboundUrl('http://[fd00::5]/', ula)).ok);
    assert.ok((await checkOutboundUrl('http://10.20.3.4/', ula)).ok);
    assert.equal((await checkOutboundUrl('http://[fc00::5]/', ula)).ok, false);
    assert.equal((await checkOutboundUrl('http://10.21.3.4/', ula)).ok, false);
    const mixed = fakeDns({ 'intranet.test': ['10.20.0.9', '10.99.0.1'] });
    assert.equal((await checkOutboundUrl('http://intranet.test/', ula, mixed)).ok, false);
  });

  it('judges addresses as DNS writes them', () => {
    assert.deepEqual(judgeAddress('8.8.8.8', LOOPBACK), { ok: true });
    assert.equal(judgeAddress('fe80::1%eth0', LOOPBACK).ok, false);
    assert.equal(judgeAddress('::127.0.0.1', LOOPBACK).ok, false); // IPv4-compatible, not mapped
    assert.equal(judgeAddress('::8.8.8.8', LOOPBACK).ok, false);
    assert.deepEqual(judgeAddress('::ffff:127.0.0.1', LOOPBACK), { ok: true });
    assert.deepEqual(judgeAddress('not-an-ip', LOOPBACK), { ok: false, why: 'not an IP address' });
  });
});

describe('the allow list (JOBSITE_WEBHOOK_ALLOW_PRIVATE)', () => {
  it('parses ranges and single addresses', () => {
    assert.deepEqual(parseAllowList([' 127.0.0.0/8 ', '10.0.0.5', 'fd00::/8', '::1', '0.0.0.0/0']).cidrs,
      ['127.0.0.0/8', '10.0.0.5/32', 'fd00::/8', '::1/128', '0.0.0.0/0']);
  });

  it('refuses what is not a CIDR range, naming the entry', () => {
    const bad: [string, RegExp][] = [
      ['10.0.0.1/8', /"10\.0\.0\.1\/8" has bits set after the prefix; did you mean 10\.0\.0\.0\/8\?/],
      ['fd00::1/8', /did you mean fd00::\/8\?/],
      ['10.0.0.0/33', /invalid prefix length \(0 to 32\)/],
      ['::/129', /invalid prefix length \(0 to 128\)/],
      ['10.0.0.0/', /invalid prefix length/],
      ['10.0.0.0/8x', /invalid prefix length/],
      ['10/8', /is not an IP address or CIDR range/],
      ['0x7f.0.0.0/8', /is not an IP address or CIDR range/],
      ['localhost', /is not an IP address or CIDR range/],
    ];
    for (const [entry, message] of bad) {
      assert.throws(() => parseAllowList([entry]), message, entry);
    }
  });

  it('stops start-up with every bad entry listed', () => {
    assert.deepEqual(loadConfig({ JOBSITE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8, fd00::/8' }).webhookAllowPrivate,
      ['127.0.0.0/8', 'fd00::/8']);
    assert.throws(() => loadConfig({ JOBSITE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/8,nonsense,10.0.0.0/8' }), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.equal(err.problems.length, 2);
      assert.match(err.problems[0]!, /JOBSITE_WEBHOOK_ALLOW_PRIVATE: "127\.0\.0\.1\/8" has bits set/);
      assert.match(err.problems[1]!, /JOBSITE_WEBHOOK_ALLOW_PRIVATE: "nonsense" is not an IP address/);
      return true;
    });
  });
});

describe('outboundRequest', () => {
  let receiver: Receiver;
  const guarded = createGuardedAgent({ allow: LOOPBACK });
  let largeSocketClosed: Promise<boolean> = Promise.resolve(false);

  before(async () => {
    receiver = await startReceiver((req, res) => {
      if (req.url === '/redirect') {
        res.writeHead(302, { location: '/elsewhere' }).end();
      } else if (req.url === '/large') {
        largeSocketClosed = new Promise((resolve) => req.socket.once('close', () => resolve(true)));
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(1024 * 1024, 'x'));
      } else {
        res.writeHead(201, { 'content-type': 'text/plain', 'x-receiver': 'yes' }).end(`got ${req.method} ${req.url}`);
      }
    });
  });
  after(async () => {
    await guarded.close();
    await closeSharedGuardedAgents();
    await receiver.close();
  });

  it('POSTs to a 127.0.0.1 receiver when the allow list contains 127.0.0.0/8, reusing the connection', async () => {
    const before = receiver.connections;
    const requestsBefore = receiver.requests.length;
    for (let i = 0; i < 6; i++) {
      const response = await outboundRequest(`${receiver.base}/hook?n=${i}`, {
        method: 'POST', userAgent: USER_AGENT, allow: LOOPBACK,
        headers: { 'content-type': 'application/json', 'x-service-event': 'ping', 'User-Agent': 'overridden' }, body: `{"n":${i}}`,
      });
      assert.equal(response.status, 201);
      assert.equal(response.headers['x-receiver'], 'yes');
      assert.equal(response.bodyExcerpt.toString(), `got POST /hook?n=${i}`);
      assert.equal(response.bodyTruncated, false);
      assert.ok(response.durationMs >= 0 && response.durationMs < 5000);
    }
    const seen = receiver.requests.slice(requestsBefore);
    assert.deepEqual(seen.map((r) => r.body), [0, 1, 2, 3, 4, 5].map((n) => `{"n":${n}}`));
    assert.equal(seen[0]!.method, 'POST');
    assert.equal(seen[0]!.headers['user-agent'], USER_AGENT);
    assert.equal(seen[0]!.headers['content-type'], 'application/json');
    assert.equal(seen[0]!.headers['x-service-event'], 'ping');
    assert.equal(seen[0]!.headers.host, `127.0.0.1:${receiver.port}`);
    // undici's pool may open a second socket before the first reports itself free; then both are reused.
    assert.ok(receiver.connections - before <= 2, `keep-alive: ${receiver.connections - before} connections for six requests`);
    assert.equal(sharedGuardedAgent(parseAllowList(['127.0.0.0/8'])), sharedGuardedAgent(LOOPBACK), 'one agent per allow list');
  });

  it('refuses to connect to 127.0.0.1 without the allow list, before any socket is opened', async () => {
    const before = receiver.connections;
    const err = await refusedWith('ssrf_blocked', outboundRequest(`${receiver.base}/hook`, { method: 'POST', userAgent: USER_AGENT }));
    assert.match(err.message, /^The address 127\.0\.0\.1 is a loopback address/);
    await refusedWith('ssrf_blocked', outboundRequest(`http://[::ffff:127.0.0.1]:${receiver.port}/`, { userAgent: USER_AGENT }));
    await refusedWith('ssrf_blocked', outboundRequest(`http://2130706433:${receiver.port}/`, { userAgent: USER_AGENT }));
    await refusedWith('ssrf_blocked', outboundRequest(`http://localhost:${receiver.port}/`, { userAgent: USER_AGENT }));
    assert.equal(receiver.connections, before);
  });

  it('judges the address again at connect time, so DNS rebinding is refused', async () => {
    const dns = fakeDns({ 'rebind.test': ['93.184.216.34'] });
    const url = `http://rebind.test:${receiver.port}/hook`;
    const atRegistration = await checkOutboundUrl(url, undefined, dns);
    assert.ok(atRegistration.ok, 'public when the webhook was registered');

    dns.calls.length = 0;
    const agent = createGuardedAgent({ resolve: fakeDns({ 'rebind.test': ['127.0.0.1'] }) });
    const before = receiver.connections;
    const err = await refusedWith('ssrf_blocked', outboundRequest(url, { method: 'POST', userAgent: USER_AGENT, agent }));
    assert.equal(err.message, 'The host rebind.test resolves to 127.0.0.1, which is a loopback address;' +
      ' only public addresses are allowed unless the operator allows the range with JOBSITE_WEBHOOK_ALLOW_PRIVATE.');
    assert.equal(receiver.connections, before);
    await agent.close();
  });

  it('connects through the injected lookup for http and https (proof that undici hands it to net and tls)', async () => {
    const dns = fakeDns({ 'receiver.test': ['127.0.0.1'] });
    const agent = createGuardedAgent({ allow: LOOPBACK, resolve: dns });
    // receiver.test exists only in the fake table: reaching the receiver proves undici connected through it.
    const response = await outboundRequest(`http://receiver.test:${receiver.port}/named`, { userAgent: USER_AGENT, agent });
    assert.equal(response.status, 201);
    assert.equal(receiver.requests.at(-1)!.headers.host, `receiver.test:${receiver.port}`);
    assert.deepEqual(dns.calls, ['receiver.test']);
    // tls.connect takes the same lookup: the handshake reaches the plain-HTTP receiver and fails there.
    await refusedWith('tls_error', outboundRequest(`https://receiver.test:${receiver.port}/`, { userAgent: USER_AGENT, agent }));
    assert.deepEqual(dns.calls, ['receiver.test', 'receiver.test']);
    const blocked = createGuardedAgent({ resolve: dns });
    await refusedWith('ssrf_blocked', outboundRequest(`https://receiver.test:${receiver.port}/`, { userAgent: USER_AGENT, agent: blocked }));
    await Promise.all([agent.close(), blocked.close()]);
  });

  it('refuses at connect time when any resolved address is not allowed', async () => {
    const agent = createGuardedAgent({ allow: LOOPBACK, resolve: fakeDns({ 'two.test': ['127.0.0.1', '10.0.0.1'] }) });
    const err = await refusedWith('ssrf_blocked', outboundRequest(`http://two.test:${receiver.port}/`, { userAgent: USER_AGENT, agent }));
    assert.match(err.message, /resolves to 10\.0\.0\.1, which is a private-network address/);
    await agent.close();
  });

  it('does not follow a redirect: a 302 is the response', async () => {
    const count = receiver.requests.length;
    const response = await outboundRequest(`${receiver.base}/redirect`, { method: 'POST', body: '{}', userAgent: USER_AGENT, agent: guarded });
    assert.equal(response.status, 302);
    assert.equal(response.headers.location, '/elsewhere');
    assert.deepEqual(receiver.requests.slice(count).map((r) => r.url), ['/redirect']);
  });

  it('reads a 1 MB response only up to 4096 bytes and drops that connection', async () => {
    const before = receiver.connections;
    const response = await outboundRequest(`${receiver.base}/large`, { userAgent: USER_AGENT, agent: guarded });
    assert.equal(response.status, 200);
    assert.equal(response.bodyExcerpt.length, 4096);
    assert.equal(response.bodyExcerpt.toString(), 'x'.repeat(4096));
    assert.equal(response.bodyTruncated, true);
    const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 2000).unref());
    assert.equal(await Promise.race([largeSocketClosed, timeout]), true, 'the connection of a cut response is closed');

    const small = await outboundRequest(`${receiver.base}/large`, { userAgent: USER_AGENT, agent: guarded, maxResponseBytes: 10 });
    assert.equal(small.bodyExcerpt.toString(), 'x'.repeat(10));
    const next = await outboundRequest(`${receiver.base}/after`, { userAgent: USER_AGENT, agent: guarded });
    assert.equal(next.status, 201);
    assert.ok(receiver.connections - before >= 2, 'a cut response does not leave its connection in the pool');
  });

  it('gives up after timeoutMs on a server that never answers, and on one that stalls mid-body', async () => {
    const silent = await startReceiver(() => undefined);
    const stalling = await startReceiver((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
    });
    try {
      let started = performance.now();
      const err = await refusedWith('timeout',
        outboundRequest(`${silent.base}/`, { method: 'POST', body: 'x', userAgent: USER_AGENT, agent: guarded, timeoutMs: 150 }));
      assert.match(err.message, /^No complete response from 127\.0\.0\.1:\d+ within 150 ms\.$/);
      assert.ok(performance.now() - started < 1500);

      started = performance.now();
      await refusedWith('timeout', outboundRequest(`${stalling.base}/`, { userAgent: USER_AGENT, agent: guarded, timeoutMs: 150 }));
      assert.ok(performance.now() - started < 1500);
    } finally {
      await Promise.all([silent.close(), stalling.close()]);
    }
  });

  it('names the failure: refused connection, unresolvable host, invalid URL', async () => {
    const closed = await startReceiver(() => undefined);
    await closed.close();
    const refused = await refusedWith('connection_refused', outboundRequest(`${closed.base}/`, { userAgent: USER_AGENT, agent: guarded }));
    assert.equal(refused.message, `127.0.0.1:${closed.port} refused the connection.`);

    const agent = createGuardedAgent({ resolve: fakeDns({}) });
    const unresolvable = await refusedWith('dns_failure', outboundRequest('https://gone.test/', { userAgent: USER_AGENT, agent }));
    assert.equal(unresolvable.message, 'The host gone.test could not be resolved (ENOTFOUND).');
    await agent.close();
    await refusedWith('dns_failure', outboundRequest('https://no-such-host.invalid/', { userAgent: USER_AGENT }));

    await refusedWith('invalid_url', outboundRequest('ftp://8.8.8.8/', { userAgent: USER_AGENT }));
    await refusedWith('invalid_url', outboundRequest('http://u:p@8.8.8.8/', { userAgent: USER_AGENT }));
  });

  it('delivers many concurrent requests over a small pool', async () => {
    const agent = createGuardedAgent({ allow: LOOPBACK, connectionsPerOrigin: 8 });
    const before = receiver.connections;
    const responses = await Promise.all(Array.from({ length: 200 }, (_, i) =>
      outboundRequest(`${receiver.base}/burst/${i}`, { method: 'POST', body: '{}', userAgent: USER_AGENT, agent })));
    assert.ok(responses.every((r) => r.status === 201));
    assert.ok(receiver.connections - before <= 8, `${receiver.connections - before} connections`);
    await agent.close();
  });
});
