// Module versions as Okapi tells them: GET /_/proxy/tenants/{tenant}/modules lists the module ids
// (name-version) enabled for the tenant. A target that does not answer it (or is down by the time
// the report is written) gives null: the report says "not available", never fails on it.
export async function moduleVersions(folioUrl, tenant, { timeoutMs = 3000 } = {}) {
  if (!folioUrl || !tenant) return null;
  try {
    const res = await fetch(`${folioUrl.replace(/\/$/, '')}/_/proxy/tenants/${encodeURIComponent(tenant)}/modules`, {
      headers: { 'X-Okapi-Tenant': tenant, Accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) return null;
    const body = await res.json();
    if (!Array.isArray(body)) return null;
    const ids = body.map((m) => m && m.id).filter((id) => typeof id === 'string');
    return ids.length ? ids.sort() : null;
  } catch {
    return null;
  }
}
