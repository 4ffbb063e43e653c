// The subset of CBOR (RFC 8949) that AWS's RPCv2-CBOR protocol uses for
// CloudWatch's ListMetrics and GetMetricData: maps with text keys, arrays,
// text, byte strings, integers, floats, booleans, null and tag 1 (epoch
// time). Enough for telegraf-configs.test.mjs to answer Telegraf's
// CloudWatch client on a local port.

/** Decodes one CBOR item from a Buffer; returns the JS value. */
export function decode(buf) {
  let pos = 0;
  const BREAK = Symbol('break');
  const length = (info) => {
    if (info < 24) return info;
    if (info === 24) return buf.readUInt8(pos++);
    if (info === 25) return (pos += 2), buf.readUInt16BE(pos - 2);
    if (info === 26) return (pos += 4), buf.readUInt32BE(pos - 4);
    if (info === 27) return (pos += 8), Number(buf.readBigUInt64BE(pos - 8));
    if (info === 31) return -1; // indefinite
    throw new Error(`CBOR: bad additional info ${info}`);
  };
  const item = () => {
    const byte = buf.readUInt8(pos++);
    const major = byte >> 5;
    const info = byte & 31;
    switch (major) {
      case 0:
        return length(info);
      case 1:
        return -1 - length(info);
      case 2:
      case 3: {
        const n = length(info);
        if (n < 0) {
          const parts = [];
          for (let p = item(); p !== BREAK; p = item()) parts.push(p);
          return major === 3 ? parts.join('') : Buffer.concat(parts);
        }
        const chunk = buf.subarray(pos, pos + n);
        pos += n;
        return major === 3 ? chunk.toString('utf8') : Buffer.from(chunk);
      }
      case 4: {
        const n = length(info);
        const out = [];
        if (n < 0) for (let v = item(); v !== BREAK; v = item()) out.push(v);
        else for (let i = 0; i < n; i++) out.push(item());
        return out;
      }
      case 5: {
        const n = length(info);
        const out = {};
        if (n < 0) for (let k = item(); k !== BREAK; k = item()) out[k] = item();
        else for (let i = 0; i < n; i++) out[item()] = item();
        return out;
      }
      case 6: {
        const tag = length(info);
        return { tag, value: item() };
      }
      default:
        if (info === 20) return false;
        if (info === 21) return true;
        if (info === 22 || info === 23) return null;
        if (info === 25) return (pos += 2), halfToFloat(buf.readUInt16BE(pos - 2));
        if (info === 26) return (pos += 4), buf.readFloatBE(pos - 4);
        if (info === 27) return (pos += 8), buf.readDoubleBE(pos - 8);
        if (info === 31) return BREAK;
        throw new Error(`CBOR: unsupported simple value ${info}`);
    }
  };
  return item();
}

function halfToFloat(h) {
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  const sign = h & 0x8000 ? -1 : 1;
  if (exp === 0) return sign * 2 ** -14 * (frac / 1024);
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * 2 ** (exp - 15) * (1 + frac / 1024);
}

/** An epoch-seconds timestamp (CBOR tag 1), as smithy expects for time values. */
export const epoch = (seconds) => ({ tag: 1, value: Math.floor(seconds) });
/** Forces a number to be encoded as a float64 (CloudWatch's datapoint values). */
export const float = (n) => ({ float: n });

/** Encodes a JS value: objects as maps, arrays, strings, integers, floats. */
export function encode(value) {
  const parts = [];
  const head = (major, n) => {
    if (n < 24) parts.push(Buffer.from([(major << 5) | n]));
    else if (n < 0x100) parts.push(Buffer.from([(major << 5) | 24, n]));
    else if (n < 0x10000) {
      const b = Buffer.alloc(3);
      b[0] = (major << 5) | 25;
      b.writeUInt16BE(n, 1);
      parts.push(b);
    } else if (n < 0x100000000) {
      const b = Buffer.alloc(5);
      b[0] = (major << 5) | 26;
      b.writeUInt32BE(n, 1);
      parts.push(b);
    } else {
      const b = Buffer.alloc(9);
      b[0] = (major << 5) | 27;
      b.writeBigUInt64BE(BigInt(n), 1);
      parts.push(b);
    }
  };
  const f64 = (n) => {
    const b = Buffer.alloc(9);
    b[0] = 0xfb;
    b.writeDoubleBE(n, 1);
    parts.push(b);
  };
  const walk = (v) => {
    if (v === null || v === undefined) parts.push(Buffer.from([0xf6]));
    else if (v === true) parts.push(Buffer.from([0xf5]));
    else if (v === false) parts.push(Buffer.from([0xf4]));
    else if (typeof v === 'number') {
      if (Number.isInteger(v)) v >= 0 ? head(0, v) : head(1, -1 - v);
      else f64(v);
    } else if (typeof v === 'string') {
      const b = Buffer.from(v, 'utf8');
      head(3, b.length);
      parts.push(b);
    } else if (Buffer.isBuffer(v)) {
      head(2, v.length);
      parts.push(v);
    } else if (Array.isArray(v)) {
      head(4, v.length);
      v.forEach(walk);
    } else if ('tag' in v && 'value' in v) {
      head(6, v.tag);
      walk(v.value);
    } else if ('float' in v) {
      f64(v.float);
    } else {
      const entries = Object.entries(v).filter(([, x]) => x !== undefined);
      head(5, entries.length);
      for (const [k, x] of entries) {
        walk(k);
        walk(x);
      }
    }
  };
  walk(value);
  return Buffer.concat(parts);
}
