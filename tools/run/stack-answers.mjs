// Whether the native stack's services answer on their ports (PostgreSQL, InfluxDB, Telegraf's
// health port): a TCP connection to 127.0.0.1 each, nothing sent.
import { connect } from 'node:net';

/** Whether something listens on 127.0.0.1:port. */
export function portAnswers(port, timeoutMs = 2000) {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port: Number(port) });
    const done = (ok) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/** All of the stack's services answer (defaults: stackDefaults()). */
export async function stackAnswers(defaults, timeoutMs = 2000) {
  const ports = [defaults.FP_PG_PORT, defaults.FP_INFLUX_PORT, defaults.FP_TELEGRAF_PORT];
  return (await Promise.all(ports.map((p) => portAnswers(p, timeoutMs)))).every(Boolean);
}
