// Samples that did not reach InfluxDB. k6's influxdb-lp output writes what it delivered to
// sample-loss.json when it stops (before handleSummary); the run folds it into summary.json, says
// it, and under SAMPLE_LOSS=fail turns a passed run that lost samples into exit 96.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const LOST_SAMPLES_EXIT = 96;

/** The runners' loss files added up (RUNNERS=N), as one process's file reads. */
export function addLoss(docs) {
  const t = { samples: 0, written: 0, dropped: 0, reasons: {}, runners: docs.length };
  for (const l of docs) {
    t.samples += l.samples || 0;
    t.written += l.written || 0;
    t.dropped += l.dropped || 0;
    for (const [k, v] of Object.entries(l.reasons || {})) t.reasons[k] = (t.reasons[k] || 0) + v;
  }
  t.share = t.samples ? t.dropped / t.samples : 0;
  return t;
}

/** Writes out/sample-loss.json from the runners' files that exist; false when none does. */
export function mergeRunnerLoss(out, files) {
  const present = files.filter((f) => existsSync(f));
  if (present.length === 0) return false;
  const total = addLoss(present.map((f) => JSON.parse(readFileSync(f, 'utf8'))));
  writeFileSync(join(out, 'sample-loss.json'), `${JSON.stringify(total, null, 2)}\n`);
  return true;
}

/** Judges the run's loss file; returns the run's exit code. */
export function judgeSampleLoss({ out, rc, sampleLoss, say, warn }) {
  const lossFile = join(out, 'sample-loss.json');
  if (!existsSync(lossFile)) return rc;
  let loss;
  try {
    loss = JSON.parse(readFileSync(lossFile, 'utf8'));
    const summaryFile = join(out, 'summary.json');
    if (existsSync(summaryFile)) {
      const s = JSON.parse(readFileSync(summaryFile, 'utf8'));
      s.sampleLoss = { samples: loss.samples, written: loss.written, dropped: loss.dropped, share: loss.share, reasons: loss.reasons };
      writeFileSync(summaryFile, `${JSON.stringify(s, null, 2)}\n`);
    }
  } catch {
    warn(`==> samples: ${lossFile} is unreadable; whether samples were lost is unknown`);
    return sampleLoss === 'fail' && rc === 0 ? LOST_SAMPLES_EXIT : rc;
  }
  if (loss.dropped > 0) {
    say(`==> samples: lost ${loss.dropped} of ${loss.samples} (${(100 * loss.share).toFixed(2)} %) on the way to InfluxDB (reasons: ${lossFile})`);
    if (sampleLoss === 'fail') {
      say('==> the run fails for it (SAMPLE_LOSS=fail; SAMPLE_LOSS=warn only reports it)');
      if (rc === 0) return LOST_SAMPLES_EXIT;
    }
  } else say(`==> samples: all ${loss.samples} written to InfluxDB`);
  return rc;
}
