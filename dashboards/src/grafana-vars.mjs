// Grafana's variable substitution for InfluxQL targets, reproduced so that
// every panel query of a dashboard can be run against InfluxDB without a
// Grafana (none is installable on the test machine). Pure: no I/O, no SDK.
//
// What is reproduced (Grafana 10–12, public/app/plugins/datasource/influxdb
// and @grafana/data rangeutil):
//   $timeFilter      → time >= <from>ms and time <= <to>ms   (absolute range)
//   $__interval      → (to − from) / maxDataPoints, rounded like Grafana, at
//                      least the panel's / datasource's min interval, as "10s"
//   $__interval_ms   → the same in milliseconds
//   $var / ${var}    → a single value raw, or regex-escaped when used inside
//                      /…/; a multi-value selection as (a|b) with each value
//                      regex-escaped; "All" as the variable's allValue, raw.

/** Grafana's rangeutil.roundInterval: snaps an interval to a "nice" one. */
export function roundInterval(ms) {
  const steps = [
    [15, 10], [35, 20], [75, 50], [150, 100], [350, 200], [750, 500], [1500, 1000], [3500, 2000],
    [7500, 5000], [12500, 10000], [17500, 15000], [25000, 20000], [45000, 30000], [90000, 60000],
    [210000, 120000], [450000, 300000], [750000, 600000], [1050000, 900000], [1500000, 1200000],
    [2700000, 1800000], [5400000, 3600000], [9000000, 7200000], [16200000, 10800000],
    [32400000, 21600000], [86400000, 43200000], [604800000, 86400000], [1814400000, 604800000],
    [3628800000, 2592000000],
  ];
  for (const [below, nice] of steps) if (ms < below) return nice;
  return 31536000000;
}

/** Grafana's secondsToHms: the largest whole unit, e.g. 120 → "2m", 0.2 → "200ms". */
export function secondsToHms(seconds) {
  const units = [
    [31536000, 'y'], [86400, 'd'], [3600, 'h'], [60, 'm'], [1, 's'],
  ];
  for (const [size, unit] of units) {
    const n = Math.floor(seconds / size);
    if (n > 0) return `${n}${unit}`;
  }
  const ms = Math.floor(seconds * 1000);
  if (ms > 0) return `${ms}ms`;
  throw new Error(`interval ${seconds}s is below one millisecond`);
}

/** Parses Grafana interval strings ("5s", "1m", "200ms") to milliseconds. */
export function parseInterval(text) {
  const m = /^(\d+)(ms|s|m|h|d|w|y)$/.exec(String(text).trim());
  if (!m) throw new Error(`not a Grafana interval: "${text}" (use e.g. 10s, 1m, 200ms)`);
  const unit = { ms: 1, s: 1000, m: 60000, h: 3600000, d: 86400000, w: 604800000, y: 31536000000 }[m[2]];
  return Number(m[1]) * unit;
}

/** Grafana's calculateInterval for a panel. */
export function calculateInterval(fromMs, toMs, maxDataPoints, minInterval) {
  let intervalMs = roundInterval((toMs - fromMs) / maxDataPoints);
  if (minInterval) intervalMs = Math.max(intervalMs, parseInterval(minInterval));
  return { intervalMs, interval: secondsToHms(intervalMs / 1000) };
}

/** Grafana's escapeRegex (used for values placed in InfluxQL regexes). */
export function escapeRegex(value) {
  return String(value).replace(/[\\^$*+?.()|[\]{}/]/g, '\\$&');
}

/** True when `$name` / `${name}` appears inside a /…/ regex after =~ or !~. */
function usedInRegex(query, name) {
  const re = new RegExp(`[=!]~\\s*/[^/]*\\$\\{?${name}\\b[^/]*/`);
  return re.test(query);
}

/** The text Grafana puts in place of one template variable. */
export function formatVariable(variable, value, query) {
  if (value === '$__all' || (Array.isArray(value) && value.includes('$__all'))) {
    if (variable.allValue) return variable.allValue; // custom all values are not escaped
    value = (variable.options ?? []).map((o) => o.value).filter((v) => v !== '$__all');
  }
  if (Array.isArray(value)) {
    if (value.length === 1) value = value[0];
    else return `(${value.map(escapeRegex).join('|')})`;
  }
  if (typeof value === 'string' && !Number.isNaN(parseFloat(value))) return value;
  if (variable.multi || variable.includeAll) return escapeRegex(value);
  return usedInRegex(query, variable.name) ? escapeRegex(value) : value;
}

/**
 * Substitutes every variable in one InfluxQL query.
 * ctx: { fromMs, toMs, intervalMs, variables: dashboard.templating.list,
 *        values: { name: string | string[] } }
 */
export function interpolateQuery(query, ctx) {
  const interval = secondsToHms(ctx.intervalMs / 1000);
  const builtins = {
    timeFilter: `time >= ${ctx.fromMs}ms and time <= ${ctx.toMs}ms`,
    __interval: interval,
    __interval_ms: String(ctx.intervalMs),
  };
  const byName = new Map((ctx.variables ?? []).map((v) => [v.name, v]));
  return query.replace(/\$\{(\w+)\}|\$(\w+)/g, (whole, braced, bare) => {
    const name = braced ?? bare;
    if (name in builtins) return builtins[name];
    const variable = byName.get(name);
    if (!variable) throw new Error(`query uses $${name}, which the dashboard does not define: ${query}`);
    if (!(name in (ctx.values ?? {}))) throw new Error(`no value given for variable $${name}`);
    return formatVariable(variable, ctx.values[name], query);
  });
}

/**
 * Every panel target of a dashboard with Grafana's substitutions applied.
 * opts: { fromMs, toMs, values, datasourceUid, pixelsWide = 1920 }
 * Returns [{ panelId, panelTitle, panelType, refId, resultFormat, datasourceUid, query, raw }].
 */
export function panelQueries(dashboard, opts) {
  const variables = dashboard.templating?.list ?? [];
  const out = [];
  for (const panel of dashboard.panels ?? []) {
    if (panel.type === 'row') continue;
    // Grafana's default maxDataPoints is the panel's width in pixels.
    const maxDataPoints = panel.maxDataPoints ?? Math.round(((panel.gridPos?.w ?? 24) / 24) * (opts.pixelsWide ?? 1920));
    const { intervalMs } = calculateInterval(opts.fromMs, opts.toMs, maxDataPoints, panel.interval ?? opts.minInterval);
    for (const target of panel.targets ?? []) {
      const ds = target.datasource?.uid ?? panel.datasource?.uid;
      out.push({
        panelId: panel.id,
        panelTitle: panel.title,
        panelType: panel.type,
        refId: target.refId,
        resultFormat: target.resultFormat,
        datasourceUid: ds === '${datasource}' || ds === '$datasource' ? opts.datasourceUid : ds,
        raw: target.query,
        query: interpolateQuery(target.query, {
          fromMs: opts.fromMs,
          toMs: opts.toMs,
          intervalMs,
          variables,
          values: opts.values,
        }),
      });
    }
  }
  return out;
}

/** The dashboard's query variables with their queries substituted (in order). */
export function variableQueries(dashboard, opts) {
  const variables = dashboard.templating?.list ?? [];
  return variables
    .filter((v) => v.type === 'query')
    .map((v) => ({
      name: v.name,
      query: interpolateQuery(typeof v.query === 'string' ? v.query : v.query.query, {
        fromMs: opts.fromMs,
        toMs: opts.toMs,
        intervalMs: 1000,
        variables,
        values: opts.values,
      }),
    }));
}

/**
 * The dashboard's own annotation queries (Grafana's built-in one has none), substituted like the
 * panels'. Returns [{ name, query }].
 */
export function annotationQueries(dashboard, opts) {
  const variables = dashboard.templating?.list ?? [];
  return (dashboard.annotations?.list ?? [])
    .filter((a) => !a.builtIn && a.target?.query)
    .map((a) => ({
      name: a.name,
      query: interpolateQuery(a.target.query, { fromMs: opts.fromMs, toMs: opts.toMs, intervalMs: 1000, variables, values: opts.values }),
    }));
}
