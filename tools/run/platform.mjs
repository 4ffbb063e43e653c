// The platform of a minifolio release profile: a profile with "platform": "eureka" (sunflower,
// trillium) runs behind Kong and sidecars with tokens from Keycloak, so Keycloak joins the stack
// (fetched and built by make keycloak when missing) and minifolio up is told where it is; Okapi
// profiles need nothing more.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../cli/stack-defaults.mjs';

/** Whether minifolio/profiles/<name>.json runs on Eureka. */
export function eurekaProfile(name) {
  const p = JSON.parse(readFileSync(join(ROOT, 'minifolio', 'profiles', `${name}.json`), 'utf8'));
  return p.platform === 'eureka';
}

/** The extra `minifolio up` arguments of the run's profile, after starting what they need. */
export async function platformArgs(ctx) {
  if (!eurekaProfile(ctx.plan.minifolioProfile)) return [];
  await ctx.step('make', ['--no-print-directory', '-C', ROOT, 'keycloak']);
  await ctx.step('stack/stack.sh', ['up', 'eureka']);
  // mod-login-keycloak sets the tenant's realm up as Keycloak's admin.
  ctx.env.FP_KEYCLOAK_ADMIN_PASSWORD ||= ctx.defaults.FP_KEYCLOAK_ADMIN_PASSWORD;
  return ['--keycloak', `http://127.0.0.1:${ctx.defaults.FP_KEYCLOAK_PORT}`];
}
