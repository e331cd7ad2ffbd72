// The OpenID provider Lore's conformance tests log in against: oauth2-mock-server's
// discovery document and token signing, plus a control API for the tests.
//
// It listens on 127.0.0.1 (port: argv[2], default 0 = a free one), prints one JSON line
// {"issuer": "...", "port": N} once it listens, and exits when its standard input closes
// (so it never outlives the test process that started it).
//
// Served to Lore (the provider's side):
//   GET  /.well-known/openid-configuration   oauth2-mock-server's discovery document
//   GET  /jwks                                the published signing keys only
//   POST /introspect                          RFC 7662; needs the client credentials
// Control API (the tests' side, JSON in and out):
//   POST /control/token   {claims, expiresIn, signer}  -> {token}
//        claims are set on the payload (null removes one, e.g. "iss" or "exp");
//        signer: "issuer" (default), "unknown-key" (a key with a kid not in the JWKS),
//        "wrong-key" (a key that reuses the kid of the published key).
//   POST /control/rotate  a new signing key is published, the old one withdrawn -> {kid}
//   POST /control/opaque  {answer} -> {token}: an opaque token whose introspection
//        answers `answer` over the defaults {active: true, iss, exp: now + 1 h}
//   GET  /control/stats   -> {jwksFetches, introspections}

import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { OAuth2Issuer, OAuth2Service } from 'oauth2-mock-server';

const clientId = process.env.OAUTH_CLIENT_ID ?? 'lore-client';
const clientSecret = process.env.OAUTH_CLIENT_SECRET ?? 'lore-secret';

const issuer = new OAuth2Issuer();
const service = new OAuth2Service(issuer);
// Keys no one publishes: tokens signed with them must be refused.
const rogue = new OAuth2Issuer();
const published = new Set();
const opaque = new Map();
const stats = { jwksFetches: 0, introspections: 0 };
let generation = 0;
let current;

async function publishNewKey() {
  generation += 1;
  const jwk = await issuer.keys.generate('RS256', { kid: `lore-test-key-${generation}` });
  published.add(jwk.kid);
  return jwk.kid;
}

function applyClaims(claims) {
  return (_header, payload) => {
    for (const [name, value] of Object.entries(claims ?? {})) {
      if (value === null) {
        delete payload[name];
      } else {
        payload[name] = value;
      }
    }
  };
}

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) {
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function clientAuthenticated(req, form) {
  const header = req.headers.authorization ?? '';
  if (header.startsWith('Basic ')) {
    const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
    const at = decoded.indexOf(':');
    const id = decodeURIComponent(decoded.slice(0, at));
    const secret = decodeURIComponent(decoded.slice(at + 1));
    return id === clientId && secret === clientSecret;
  }
  return form.get('client_id') === clientId && form.get('client_secret') === clientSecret;
}

async function handle(req, res) {
  const path = new URL(req.url, issuer.url).pathname;
  if (req.method === 'GET' && path === '/jwks') {
    stats.jwksFetches += 1;
    const keys = issuer.keys.toJSON().filter((k) => published.has(k.kid));
    return send(res, 200, { keys });
  }
  if (req.method === 'POST' && path === '/introspect') {
    stats.introspections += 1;
    const form = new URLSearchParams(await readBody(req));
    if (!clientAuthenticated(req, form)) {
      return send(res, 401, { error: 'invalid_client' });
    }
    return send(res, 200, opaque.get(form.get('token')) ?? { active: false });
  }
  if (path.startsWith('/control/')) {
    const text = req.method === 'POST' ? await readBody(req) : '';
    const input = text ? JSON.parse(text) : {};
    if (path === '/control/token') {
      const signer = input.signer ?? 'issuer';
      const options = { expiresIn: input.expiresIn ?? 3600, scopesOrTransform: applyClaims(input.claims) };
      if (signer === 'issuer') {
        return send(res, 200, { token: await issuer.buildToken({ ...options, kid: current }) });
      }
      const kid = signer === 'wrong-key' ? current : `not-published-${generation}`;
      await rogue.keys.generate('RS256', { kid });
      rogue.url = issuer.url;
      return send(res, 200, { token: await rogue.buildToken({ ...options, kid }) });
    }
    if (path === '/control/rotate') {
      const old = current;
      current = await publishNewKey();
      published.delete(old);
      return send(res, 200, { kid: current });
    }
    if (path === '/control/opaque') {
      const token = randomBytes(24).toString('hex');
      const answer = { active: true, iss: issuer.url, exp: Math.floor(Date.now() / 1000) + 3600 };
      for (const [name, value] of Object.entries(input.answer ?? {})) {
        if (value === null) {
          delete answer[name];
        } else {
          answer[name] = value;
        }
      }
      opaque.set(token, answer);
      return send(res, 200, { token });
    }
    if (path === '/control/stats') {
      return send(res, 200, stats);
    }
    return send(res, 404, { error: `no control route ${path}` });
  }
  return service.requestHandler(req, res);
}

current = await publishNewKey();
const server = http.createServer((req, res) => {
  handle(req, res).catch((err) => send(res, 500, { error: String(err) }));
});
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  const { port } = server.address();
  issuer.url = `http://127.0.0.1:${port}`;
  process.stdout.write(`${JSON.stringify({ issuer: issuer.url, port })}\n`);
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
