// GitHub Actions' expression language (`${{ ... }}`, `if:`), as far as folio-perf's workflows and
// the callers in its docs use it, evaluated as GitHub evaluates it: `a || b` gives the first truthy
// operand, `a && b` the first falsy one, `==` compares strings without case and other mixed types
// as numbers, an `if:` without a status function means `success() && (...)`. Anything else (a
// function, operator or context it does not know) throws, so a workflow that grows past this
// evaluator fails its test instead of being evaluated wrongly. Pure.

export class ExprError extends Error {}

const TOKEN = /\s*(?:(\d+(?:\.\d+)?)|'((?:[^']|'')*)'|([A-Za-z_][A-Za-z0-9_-]*)|(==|!=|<=|>=|&&|\|\||[!<>()[\].,]))/y;

function tokenize(src) {
  const out = [];
  TOKEN.lastIndex = 0;
  let at = 0;
  while (at < src.length) {
    if (/^\s*$/.test(src.slice(at))) break;
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(src);
    if (!m) throw new ExprError(`cannot read the expression at "${src.slice(at)}"`);
    at = TOKEN.lastIndex;
    if (m[1] !== undefined) out.push({ t: 'lit', v: Number(m[1]) });
    else if (m[2] !== undefined) out.push({ t: 'lit', v: m[2].replace(/''/g, "'") });
    else if (m[3] !== undefined) out.push(['true', 'false', 'null'].includes(m[3]) ? { t: 'lit', v: JSON.parse(m[3]) } : { t: 'id', v: m[3] });
    else out.push({ t: 'op', v: m[4] });
  }
  return out;
}

const truthy = (v) => !(v === false || v === 0 || v === '' || v === null || v === undefined || Number.isNaN(v));
const toNumber = (v) => (v === null || v === undefined ? 0 : typeof v === 'boolean' ? Number(v) : typeof v === 'string' ? (v.trim() === '' ? 0 : Number(v)) : typeof v === 'number' ? v : NaN);
const primitive = (v) => v === null || v === undefined || typeof v !== 'object';
function equal(a, b) {
  if (!primitive(a) || !primitive(b)) return a === b;
  if (typeof a === 'string' && typeof b === 'string') return a.toLowerCase() === b.toLowerCase();
  if (typeof a === typeof b) return a === b;
  // null (a missing property) == '' and == 0, as GitHub coerces mixed types to numbers.
  return toNumber(a) === toNumber(b);
}
/** A value as a string in a template (`text ${{ expr }} text`). */
export function asString(v) {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v, null, 2);
  return String(v);
}

const STATUS = ['success', 'failure', 'always', 'cancelled'];

/**
 * Evaluates one expression (without `${{ }}`). ctx: { contexts: {inputs, secrets, github, ...},
 * status: { failed: boolean } }.
 */
export function evaluate(src, ctx) {
  const toks = tokenize(src);
  let i = 0;
  const peek = () => toks[i];
  const take = (v) => {
    const t = toks[i];
    if (!t || (v !== undefined && t.v !== v)) throw new ExprError(`expected "${v}" in "${src}"`);
    i += 1;
    return t;
  };
  const isOp = (v) => peek()?.t === 'op' && peek().v === v;

  function primary() {
    const t = take();
    if (t.t === 'lit') return t.v;
    if (t.t === 'op' && t.v === '(') {
      const v = or();
      take(')');
      return v;
    }
    if (t.t !== 'id') throw new ExprError(`unexpected "${t.v}" in "${src}"`);
    if (isOp('(')) {
      take('(');
      const args = [];
      while (!isOp(')')) {
        args.push(or());
        if (isOp(',')) take(',');
      }
      take(')');
      return call(t.v, args);
    }
    if (!Object.hasOwn(ctx.contexts, t.v)) throw new ExprError(`unknown context "${t.v}" in "${src}"`);
    let v = ctx.contexts[t.v];
    for (;;) {
      if (isOp('.')) {
        take('.');
        const key = take().v;
        v = v === null || v === undefined ? null : v[key] ?? null;
      } else if (isOp('[')) {
        take('[');
        const key = or();
        take(']');
        v = v === null || v === undefined ? null : v[key] ?? null;
      } else return v;
    }
  }
  function unary() {
    if (isOp('!')) {
      take('!');
      return !truthy(unary());
    }
    return primary();
  }
  function cmp() {
    let v = unary();
    while (['==', '!=', '<', '<=', '>', '>='].some(isOp)) {
      const op = take().v;
      const r = unary();
      if (op === '==') v = equal(v, r);
      else if (op === '!=') v = !equal(v, r);
      else {
        const [a, b] = [toNumber(v), toNumber(r)];
        v = op === '<' ? a < b : op === '<=' ? a <= b : op === '>' ? a > b : a >= b;
      }
    }
    return v;
  }
  function and() {
    let v = cmp();
    while (isOp('&&')) {
      take('&&');
      const r = cmp();
      v = truthy(v) ? r : v;
    }
    return v;
  }
  function or() {
    let v = and();
    while (isOp('||')) {
      take('||');
      const r = and();
      v = truthy(v) ? v : r;
    }
    return v;
  }
  function call(name, args) {
    const fn = name.toLowerCase();
    if (fn === 'success') return !ctx.status.failed;
    if (fn === 'failure') return ctx.status.failed;
    if (fn === 'always') return true;
    if (fn === 'cancelled') return false;
    if (fn === 'fromjson') return JSON.parse(asString(args[0]));
    if (fn === 'tojson') return JSON.stringify(args[0], null, 2);
    if (fn === 'format') return asString(args[0]).replace(/\{(\d+)\}/g, (_, n) => asString(args[Number(n) + 1]));
    throw new ExprError(`the function ${name}() is not known to this evaluator (tests/e2e/gha-expr.mjs); add it there`);
  }

  const v = or();
  if (i !== toks.length) throw new ExprError(`unexpected "${toks[i].v}" in "${src}"`);
  return v;
}

const TEMPLATE = /\$\{\{(.*?)\}\}/gs;

/** A value of a workflow: a string with `${{ }}` parts evaluated; one whole `${{ }}` keeps its type. */
export function interpolate(value, ctx) {
  if (typeof value !== 'string') return value;
  const whole = /^\s*\$\{\{(.*)\}\}\s*$/s.exec(value);
  if (whole && !whole[1].includes('}}')) return evaluate(whole[1], ctx);
  return value.replace(TEMPLATE, (_, e) => asString(evaluate(e, ctx)));
}

/** An `if:` condition: true or false, with GitHub's implicit success(). */
export function condition(text, ctx) {
  if (text === undefined || text === null) return !ctx.status.failed;
  const src = String(text).trim().replace(/^\$\{\{(.*)\}\}$/s, '$1');
  const v = evaluate(src, ctx);
  const usesStatus = STATUS.some((s) => new RegExp(`\\b${s}\\s*\\(`, 'i').test(src));
  return usesStatus ? truthy(v) : !ctx.status.failed && truthy(v);
}
