// Test data of one runner when a run is split over several k6 processes (`make run RUNNERS=N`, or
// the k6-operator's TestRun with parallelism N). Each runner is started on one execution segment
// of the same plan (`--execution-segment 1/4:2/4 --execution-segment-sequence 0,1/4,2/4,3/4,1`)
// and runs only its share of the VUs. Pure: lib/k6/cico.js reads the segment from k6 and applies
// these functions.
//
// Why a hash and not the order of the pools: every runner selects its pools from the live
// database in its own init, and runners start seconds apart. By then another runner may have
// checked items out, so the lists the runners load differ (an item another runner checked out is
// missing from "available" and present in "checked out"), and slicing by position would hand one
// item to two runners. An item's (and a patron's) runner is instead a function of its barcode
// alone: the barcode's hash (FNV-1a, then MurmurHash3's finaliser), read as a point in [0, 1), falls in exactly one segment of the
// sequence. So no two runners ever hold the same item or patron, whatever each of them loaded, and
// teardown of a runner can only see its own items. Within a runner, VUs then take contiguous slices
// of its share as in an unsegmented run.
//
// Without a segment (k6 reports none, or the whole 0:1) nothing is filtered: a run on one process
// uses exactly the pools and slices it always used.

const RATIONAL = /^\s*(\d+)\s*(?:\/\s*(\d+))?\s*$/;

function rational(s, what) {
  const t = String(s).trim();
  if (/%$/.test(t)) {
    const v = Number(t.slice(0, -1));
    if (Number.isFinite(v)) return v / 100;
  } else if (/^\d*\.\d+$/.test(t)) {
    return Number(t);
  } else {
    const m = RATIONAL.exec(t);
    if (m) {
      const den = m[2] === undefined ? 1 : Number(m[2]);
      if (den > 0) return Number(m[1]) / den;
    }
  }
  throw new Error(`${what} "${s}" is not a fraction; fix: use k6's notation, e.g. 1/4:2/4`);
}

/**
 * k6's execution segment as { from, to, text } with 0 <= from < to <= 1, or null when the run is
 * not segmented (k6 gives null, "" or the whole "0:1"). k6 writes it as `from:to` with each end a
 * fraction ("1/2:1"; go.k6.io/k6 lib/execution_segment.go, String), and accepts a single end ("1/4"
 * = 0:1/4), decimals and percentages on the command line.
 */
export function parseSegment(value) {
  if (value === null || value === undefined || String(value).trim() === '') return null;
  const text = String(value).trim();
  const parts = text.split(':');
  if (parts.length > 2) throw new Error(`execution segment "${text}" has more than one ':'; fix: use from:to, e.g. 1/4:2/4`);
  const from = parts.length === 2 ? rational(parts[0], 'execution segment start') : 0;
  const to = rational(parts[parts.length - 1], 'execution segment end');
  if (!(from >= 0 && from < to && to <= 1)) throw new Error(`execution segment "${text}" is not within 0:1 with start < end; fix: e.g. 0:1/2 and 1/2:1`);
  if (from === 0 && to === 1) return null;
  return { from, to, text };
}

/** FNV-1a, 32 bits, over the UTF-16 code units of s: small, stable, the same in k6 and node. */
export function fnv1a32(s) {
  let h = 0x811c9dc5;
  const t = String(s);
  for (let i = 0; i < t.length; i++) {
    h ^= t.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

// MurmurHash3's finaliser: FNV-1a alone spreads sequential barcodes (b000001, b000002, ...) unevenly
// over its high bits, which decide the segment; this mixes every bit into every other.
function fmix32(h) {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

/** Where a barcode lies in [0, 1): the point that decides its runner. */
export function segmentPoint(barcode) {
  return fmix32(fnv1a32(barcode)) / 4294967296;
}

/** Whether a barcode belongs to segment (null: the whole run). Half-open [from, to), so the segments of a sequence never share a barcode. */
export function inSegment(barcode, segment) {
  if (!segment) return true;
  const p = segmentPoint(barcode);
  return p >= segment.from && p < segment.to;
}

/**
 * A runner's part of the pools ({ available, checkedOut, users }, arrays or SharedArrays): the
 * barcodes in its segment. Without a segment, the pools themselves (not copied).
 */
export function segmentPools(pools, segment) {
  if (!segment) return pools;
  const keep = (a) => {
    const out = [];
    for (let i = 0; i < a.length; i++) if (inSegment(a[i], segment)) out.push(a[i]);
    return out;
  };
  return { ...pools, available: keep(pools.available), checkedOut: keep(pools.checkedOut), users: keep(pools.users) };
}

/**
 * The VU slots of one runner: an upper bound of its local VU numbers (k6's __VU, or
 * exec.vu.idInInstance, 1..n in each process). k6 scales every scenario's VUs to a segment and
 * keeps the sum over the sequence equal to the plan's (lib/execution_segment.go, ScaleInt64), so a
 * segment of length L never gets more than ceil(vus x L) of a scenario. initialized (the VUs k6 had
 * initialised when setup ran, exec.instance.vusInitialized) raises the bound if it is larger.
 */
export function segmentSlots(scenarios, segment, initialized = 0) {
  let n = 0;
  const len = segment ? segment.to - segment.from : 1;
  for (const s of Object.values(scenarios)) {
    const vus = s.vus || s.maxVUs || Math.max(0, ...(s.stages || []).map((x) => x.target)) || 0;
    // The epsilon keeps 20 x (1/2) from becoming 11 through float rounding of the segment's ends.
    n += Math.ceil(vus * len - 1e-9);
  }
  return Math.max(1, n, initialized || 0);
}
