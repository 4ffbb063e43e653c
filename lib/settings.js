// Parsers shared by the workflows' settings. Each throws one line: the cause and the fix.

export function parseFlag(v, name) {
  if (v === undefined || v === '' || v === 'false' || v === '0') return false;
  if (v === 'true' || v === '1') return true;
  throw new Error(`${name} "${v}" is not a flag; fix: use ${name}=true or ${name}=false`);
}

export function oneOf(v, name, allowed, dflt) {
  if (v === undefined || v === '') return dflt;
  if (!allowed.includes(v)) throw new Error(`${name} "${v}" is not one of ${allowed.join(', ')}; fix: use e.g. ${name}=${dflt ?? allowed[0]}`);
  return v;
}
