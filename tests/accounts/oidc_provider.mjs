// A real OpenID Connect provider for the single sign-on tests: panva's certified
// oidc-provider (npm), one client, accounts whose groups are read from a JSON file at each
// sign-in (so a test can change a person's groups between two sign-ins). Its development
// interactions (a login form that takes any name and password, then a consent page) stand in
// for the institution's sign-in pages.
// A provider that misbehaves on request: when TAMPER_JSON holds {"aud": ...} or
// {"expired": true}, the ID token its token endpoint hands out carries that audience, or
// expired ten minutes ago, signed with the provider's own key (so only the claims can be
// refused, not the signature).
//   node oidc_provider.mjs PORT REDIRECT_URI AFTER_LOGOUT_URI GROUPS_JSON [TAMPER_JSON]
import { existsSync, readFileSync } from 'node:fs';
import * as jose from 'jose';
import Provider from 'oidc-provider';

const [port, redirect, afterLogout, groupsFile, tamperFile] = process.argv.slice(2);
const groupsOf = (id) => (JSON.parse(readFileSync(groupsFile, 'utf8'))[id] || []);
const tamper = () => (tamperFile && existsSync(tamperFile) ? JSON.parse(readFileSync(tamperFile, 'utf8')) : {});

const { privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
const signingKey = { ...(await jose.exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };

const provider = new Provider(`http://127.0.0.1:${port}`, {
  jwks: { keys: [signingKey] },
  clients: [{
    client_id: 'cfpd', client_secret: 'cfpd-test-secret', redirect_uris: [redirect],
    post_logout_redirect_uris: [afterLogout], token_endpoint_auth_method: 'client_secret_post',
  }],
  scopes: ['openid', 'email', 'profile', 'groups'],
  claims: { openid: ['sub'], email: ['email'], profile: ['preferred_username', 'name'], groups: ['groups'] },
  findAccount: async (ctx, id) => ({
    accountId: id,
    claims: async () => ({ sub: id, preferred_username: id, name: id, email: `${id}@example.org`, groups: groupsOf(id) }),
  }),
  features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
});
provider.use(async (ctx, next) => {
  await next();
  const wanted = tamper();
  if (ctx.path !== '/token' || !ctx.body || !ctx.body.id_token || !(wanted.aud || wanted.expired)) return;
  const claims = jose.decodeJwt(ctx.body.id_token);
  if (wanted.aud) claims.aud = wanted.aud;
  if (wanted.expired) {
    const now = Math.floor(Date.now() / 1000);
    Object.assign(claims, { iat: now - 3600, exp: now - 600 });
  }
  const header = jose.decodeProtectedHeader(ctx.body.id_token);
  ctx.body = { ...ctx.body, id_token: await new jose.SignJWT(claims).setProtectedHeader(header).sign(privateKey) };
});
provider.listen(Number(port), '127.0.0.1', () => console.log(`listening ${port}`));
