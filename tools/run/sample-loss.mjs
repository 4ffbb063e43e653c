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

/**
 * Writes out/sample-loss.json from the runners' files that exist, with how many runners there were
 * (runnersExpected): fewer files than runners is a loss nobody counted, judged `unknown`.
 */
export function mergeRunnerLoss(out, files) {
  const present = files.filter((f) => existsSync(f));
  const total = { ...addLoss(present.map((f) => JSON.parse(readFileSync(f, 'utf8')))), runnersExpected: files.length };
  writeFileSync(join(out, 'sample-loss.json'), `${JSON.stringify(total, null, 2)}\n`);
  return present.length > 0;
}

/** The verdict on a loss document (null: none could be read) and the text folio-perf run prints. */
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

/**
 * Judges the run's loss file (judgeLoss) and folds it into summary.json;
 * returns the run's exit code. A missing or unreadable file, or fewer runners' files than runners,
 * is `unknown`: under SAMPLE_LOSS=fail it fails a passed run like a loss (a loss nobody counted is
 * not no loss).
 */
export function judgeSampleLoss({ out, rc, sampleLoss, say, warn }) {
  const lossFile = join(out, 'sample-loss.json');
  let loss = null;
  try {
    loss = JSON.parse(readFileSync(lossFile, 'utf8'));
  } catch {
    loss = null;
  }
  const { verdict, text } = judgeLoss(loss, lossFile);
  const summaryFile = join(out, 'summary.json');
  if (existsSync(summaryFile)) {
    try {
      const s = JSON.parse(readFileSync(summaryFile, 'utf8'));
      s.sampleLoss = loss && verdict !== 'unknown'
        ? { samples: loss.samples, written: loss.written, dropped: loss.dropped, share: loss.share, reasons: loss.reasons }
        : { unknown: true, why: text.replace(/^==> samples: /, ''), ...(loss ? { samples: loss.samples, written: loss.written, dropped: loss.dropped } : {}) };
      writeFileSync(summaryFile, `${JSON.stringify(s, null, 2)}\n`);
    } catch {
      warn(`==> summary: ${summaryFile} is unreadable; its sampleLoss is not recorded`);
    }
  }
  (verdict === 'ok' ? say : warn)(text);
  if (verdict === 'ok') return rc;
  if (sampleLoss === 'fail') {
    say('==> the run fails for it (SAMPLE_LOSS=fail; SAMPLE_LOSS=warn only reports it)');
    if (rc === 0) return LOST_SAMPLES_EXIT;
  }
  return rc;
}
