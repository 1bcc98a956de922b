// A real OpenID Connect provider for the single sign-on tests: panva's certified
// oidc-provider (npm), one client, accounts whose groups are read from a JSON file at each
// sign-in (so a test can change a person's groups between two sign-ins). Its development
// interactions (a login form that takes any name and password, then a consent page) stand in
// for the institution's sign-in pages.
//   node oidc_provider.mjs PORT REDIRECT_URI AFTER_LOGOUT_URI GROUPS_JSON
import { readFileSync } from 'node:fs';
import Provider from 'oidc-provider';

const [port, redirect, afterLogout, groupsFile] = process.argv.slice(2);
const groupsOf = (id) => (JSON.parse(readFileSync(groupsFile, 'utf8'))[id] || []);

const provider = new Provider(`http://127.0.0.1:${port}`, {
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
provider.listen(Number(port), '127.0.0.1', () => console.log(`listening ${port}`));
