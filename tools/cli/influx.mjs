// Which InfluxDB a command reads: --influx, else FP_INFLUX_URL, else the local stack's (the port of
// the one defaults file, as make's targets use). When it is that guess, the command says so on
// stderr, so a wrong guess shows at once; a URL the user gave is named in any error about it, with
// any user:password left out.
import { defaultsLookup } from '../../lib/defaults.js';
import { readRepoFile } from '../defaults.mjs';

export const INFLUX_OPTION = {
  type: 'string',
  value: '<url>',
  help: 'the InfluxDB 1.x that recorded the run (default: FP_INFLUX_URL, else the local stack\'s http://127.0.0.1:<FP_INFLUX_PORT>)',
};

/** { url, source } for the --influx value given (or undefined). */
export function chooseInflux(flag, env = process.env) {
  if (flag) return { url: flag, source: '--influx' };
  if (env.FP_INFLUX_URL) return { url: env.FP_INFLUX_URL, source: 'FP_INFLUX_URL' };
  return { url: `http://127.0.0.1:${defaultsLookup(env, readRepoFile)('FP_INFLUX_PORT')}`, source: "the local stack's; --influx <url> or FP_INFLUX_URL for another" };
}

/** The URL without credentials, for messages. */
export function shownUrl(url) {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return String(url).replace(/\/\/[^/@]*@/, '//');
  }
}

/** Chooses the InfluxDB; says on stderr when it is the local stack's by default (stdout stays the result). */
export function influxFor(flag, env = process.env, err = process.stderr) {
  const chosen = chooseInflux(flag, env);
  if (chosen.source.startsWith("the local stack's")) err.write(`folio-perf: InfluxDB ${shownUrl(chosen.url)} (${chosen.source})\n`);
  return chosen.url;
}
