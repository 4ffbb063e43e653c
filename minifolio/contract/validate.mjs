// Validates answers against FOLIO's published JSON schemas (schemas/, see SOURCES), with a real
// JSON-schema validator: Ajv in draft-04 mode, the draft FOLIO's RAML schemas are written in.
// Every file is registered under a URI made of its module and path, so relative $refs
// ("raml-util/schemas/metadata.schema", "../uuid.json") resolve as they do in the repository.
import Ajv from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONTRACT_RELEASES } from './endpoints.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), 'schemas');
const base = 'https://schemas.folio-perf.invalid/';

function files(dir) {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

// Draft-04 ignores every keyword beside a $ref, and FOLIO's schemas rely on it (mod-circulation's
// extended-error.json: "parameters": {"type": "object", "$ref": "…/parameters.schema"}, an array).
// Ajv checks a sibling "type" all the same, so the siblings are dropped before loading.
function refsAlone(v) {
  if (Array.isArray(v)) return v.map(refsAlone);
  if (!v || typeof v !== 'object') return v;
  if (typeof v.$ref === 'string') return { $ref: v.$ref };
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, refsAlone(x)]));
}

// contract(release) -> { validate(name, status, body) -> null | [error text...], endpoints (by
// "<name> <status>") }, with
// the schemas of that release (CONTRACT_RELEASES: 'orchid', 'lotus').
export function contract(release) {
  const rel = CONTRACT_RELEASES.find((r) => r.release === release);
  if (!rel) throw new Error(`no contract for release ${release}: one of ${CONTRACT_RELEASES.map((r) => r.release).join(', ')}`);
  // strict: false because FOLIO's schemas carry RMB's own keywords (javaType, readonly, …).
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const dir = join(root, release);
  for (const f of files(dir)) {
    const doc = refsAlone(JSON.parse(readFileSync(f, 'utf8')));
    delete doc.$schema;
    delete doc.$id;
    doc.id = base + relative(dir, f).split(sep).join('/');
    ajv.addSchema(doc);
  }
  const byName = new Map();
  for (const m of rel.modules) {
    for (const e of m.endpoints) byName.set(`${e.name} ${e.status}`, { ...e, module: m.module, tag: m.tag, id: `${base}${m.module}/${e.schema}` });
  }
  return {
    endpoints: byName,
    // null when name has no schema or the status is not the one the schema describes.
    validate(name, status, body) {
      const e = byName.get(`${name} ${status}`);
      if (!e) return null;
      let doc;
      try {
        doc = JSON.parse(body);
      } catch (err) {
        return [`not JSON: ${err.message}`];
      }
      const v = ajv.getSchema(e.id);
      if (!v) throw new Error(`schema ${e.id} is not loaded: run node tools/contract-schemas.mjs`);
      if (v(doc)) return [];
      return v.errors.map((x) => `${x.instancePath || '/'} ${x.message}${x.params && x.params.additionalProperty ? `: ${x.params.additionalProperty}` : ''}`);
    },
  };
}
