#!/usr/bin/env node
// The test id rule (lib/testid.js) for the shell, so that tools/defaults.sh does not keep a copy:
//   node tools/testid.mjs check <id>                exit 0 when <id> is a test id, else 1
//   node tools/testid.mjs new <prefix> [<release>]  prints <prefix>-<UTC time>[-<release>]
//   node tools/testid.mjs stamp                     prints the UTC time as test ids write it
import { makeTestId, testidStamp, validTestId } from '../lib/testid.js';

const [cmd, a, b] = process.argv.slice(2);
if (cmd === 'check' && a !== undefined) process.exit(validTestId(a) ? 0 : 1);
else if (cmd === 'new' && a) {
  const id = makeTestId(a, b);
  if (!validTestId(id)) {
    console.error(`folio-perf: "${id}" is not a test id; fix: use letters, digits, . _ - in the workflow and release names`);
    process.exit(1);
  }
  console.log(id);
} else if (cmd === 'stamp') console.log(testidStamp());
else {
  console.error('usage: node tools/testid.mjs check <id> | new <prefix> [<release>] | stamp');
  process.exit(2);
}
