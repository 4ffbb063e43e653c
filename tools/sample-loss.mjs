#!/usr/bin/env node
// What a run's samples came to on their way to InfluxDB, from the k6 output's sample-loss.json
// (K6_INFLUXDB_LOSS_FILE; with RUNNERS=N the runners' files added up by tools/run-runners.sh):
//   node tools/sample-loss.mjs results/<testid>
// prints one line, "<verdict> <text>": `ok` every sample written, `lost` some were not, `unknown`
// the file is missing or unreadable, or fewer runners wrote one than ran, so nobody knows; and
// adds the counts to the run's summary.json as `sampleLoss`. tools/run.sh fails the run for `lost`
// and `unknown` alike under SAMPLE_LOSS=fail (exit 96): a loss nobody counted is not no loss.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The verdict on a loss document (null: none could be read) and the text tools/run.sh prints. */
export function judgeLoss(loss, file) {
  if (!loss || typeof loss !== 'object' || !Number.isFinite(loss.samples)) {
    return { verdict: 'unknown', text: `==> samples: ${file} is missing or unreadable (the output could not write it); whether samples were lost is unknown` };
  }
  if (Number.isFinite(loss.runnersExpected) && !(loss.runners >= loss.runnersExpected)) {
    return {
      verdict: 'unknown',
      text: `==> samples: ${loss.runners ?? 0} of ${loss.runnersExpected} runners wrote their sample-loss file; whether the others' samples were lost is unknown (${loss.dropped} of ${loss.samples} lost by those that did)`,
    };
  }
  if (loss.dropped > 0) {
    return { verdict: 'lost', text: `==> samples: lost ${loss.dropped} of ${loss.samples} (${(100 * loss.share).toFixed(2)} %) on the way to InfluxDB (reasons: ${file})` };
  }
  return { verdict: 'ok', text: `==> samples: all ${loss.samples} written to InfluxDB` };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  const file = join(dir, 'sample-loss.json');
  let loss = null;
  try {
    loss = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // missing or unreadable: judged unknown
  }
  const { verdict, text } = judgeLoss(loss, file);
  const summaryFile = join(dir, 'summary.json');
  if (existsSync(summaryFile)) {
    const s = JSON.parse(readFileSync(summaryFile, 'utf8'));
    s.sampleLoss = verdict === 'unknown'
      ? { unknown: true, why: text.replace(/^==> samples: /, ''), ...(loss ? { samples: loss.samples, written: loss.written, dropped: loss.dropped } : {}) }
      : { samples: loss.samples, written: loss.written, dropped: loss.dropped, share: loss.share, reasons: loss.reasons };
    writeFileSync(summaryFile, JSON.stringify(s, null, 2) + '\n');
  }
  process.stdout.write(`${verdict} ${text}\n`);
}
