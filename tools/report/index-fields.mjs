#!/usr/bin/env node
// Prints {module: {field: lines}} for the <module>.log files of a directory: the fields RMB's
// "Doing … without index for <field>" lines name. The run snapshots it before and after k6
// (results/<testid>/index-fields-{start,end}.json) beside the line counts; the report diffs them.
//   node tools/report/index-fields.mjs <log dir>
import { indexFieldSnapshot } from './db-gather.mjs';

const dir = process.argv[2];
if (!dir) {
  console.error('folio-perf: index-fields needs a log directory; fix: node tools/report/index-fields.mjs <dir of <module>.log files>');
  process.exit(1);
}
process.stdout.write(`${JSON.stringify(indexFieldSnapshot(dir))}\n`);
