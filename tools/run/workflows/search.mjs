// The mod-search workflow's run (scripts/mod-search.js). On the local stack: OpenSearch joins the
// stack, minifolio's mod-search uses it, and a second tenant (the one a reindex phase reindexes)
// is seeded; both tenants are indexed through mod-search's own reindex API, so the baseline phase
// searches a full index and the reindex phase rebuilds one, as on a real FOLIO. The query files
// (data/search/) and OpenSearch are built by make (the workflow's `needs`).
import { join } from 'node:path';

// OpenSearch's heap per SEED_SCALE: the default for the demo's 20,000 instances; for a million, a
// heap whose indexing buffer (10 % of it) takes a reindex's bulk requests without flushing tiny
// segments; ptf's 7.3 M within the ~4 GB one stack of several on a 24 GB machine may take.
const OPENSEARCH_HEAP = { demo: '512m', '1m': '2g', ptf: '4g' };

export default {
  dashboard: 'folio-mod-search',

  async minifolioArgs(ctx) {
    // OpenSearch joins the stack only for this workflow (reused when it runs already), with a heap
    // for the scale's index unless FP_OPENSEARCH_HEAP says otherwise (docs/scale.md).
    const heap = ctx.env.FP_OPENSEARCH_HEAP || OPENSEARCH_HEAP[ctx.plan.seed.scale] || OPENSEARCH_HEAP.demo;
    await ctx.step('stack/stack.sh', ['up', 'search'], { env: { ...ctx.env, FP_OPENSEARCH_HEAP: heap } });
    return ['--opensearch', `http://127.0.0.1:${ctx.defaults.FP_OPENSEARCH_PORT}`];
  },

  async afterReset(ctx) {
    const { env, defaults, plan } = ctx;
    const tenantA = env.REINDEX_TENANT || defaults.FP_REINDEX_TENANT;
    ctx.say(`==> minifolio: seeding ${tenantA} (the tenant a reindex phase reindexes) if empty`);
    const s = plan.seed;
    // no patron-block history: this tenant is only reindexed
    await ctx.step(ctx.minifolio, ['seed', '--tenant', tenantA, '--admin-user', defaults.FP_USER, ...s.args, '--events-per-user', '0']);
    // A complete index is kept: at SEED_SCALE=1m or ptf a reindex takes minutes to hours, and the
    // bound on it grows with the scale.
    const timeout = { demo: 600, '1m': 3 * 3600, ptf: 12 * 3600 }[s.scale] ?? 600;
    for (const t of [defaults.FP_TENANT, tenantA]) {
      await ctx.step(process.execPath, [join('tools', 'search-index.mjs'), '--url', ctx.minifolioUrl, '--tenant', t, '--timeout', String(timeout), '--if-incomplete']);
    }
  },
};
