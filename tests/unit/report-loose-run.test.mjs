// A plain `k6 run` cannot create results/<testid>/: its summary lands in the working directory
// (lib/summary.js summaryFile), and the report commands file it, with k6's HTML report of the same
// name, under results/<testid>/ (tools/report/run-files.mjs fileLooseRun) before reading the run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { summaryFile, looseSummaryPath, looseWebReportPath } from '../../lib/summary.js';
import { fileLooseRun } from '../../tools/report/run-files.mjs';

test('summaryFile: the run\'s directory when it exists, else a file named after the test id', () => {
  assert.equal(summaryFile({ testid: 'cico-1', dir: 'results/cico-1', dirExists: true }), 'results/cico-1/summary.json');
  assert.equal(summaryFile({ testid: 'cico-1', dir: 'results/cico-1', dirExists: false }), 'results-cico-1-summary.json');
  assert.equal(looseSummaryPath('cico-1'), 'results-cico-1-summary.json');
  assert.equal(looseWebReportPath('cico-1'), 'results-cico-1-k6-report.html');
});

test('fileLooseRun moves a loose summary and its HTML report into results/<testid>/, and says so', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'fp-loose-'));
  try {
    const results = join(cwd, 'results');
    writeFileSync(join(cwd, looseSummaryPath('cico-1')), '{"meta":{"testid":"cico-1"}}');
    writeFileSync(join(cwd, looseWebReportPath('cico-1')), '<html>');
    const said = [];
    assert.equal(fileLooseRun('cico-1', results, { from: cwd, say: (l) => said.push(l) }), true);
    assert.equal(readFileSync(join(results, 'cico-1', 'summary.json'), 'utf8'), '{"meta":{"testid":"cico-1"}}');
    assert.equal(readFileSync(join(results, 'cico-1', 'k6-report.html'), 'utf8'), '<html>');
    assert.ok(!existsSync(join(cwd, looseSummaryPath('cico-1'))));
    assert.equal(said.length, 2);
    assert.match(said[0], /results-cico-1-summary\.json -> .*results\/cico-1\/summary\.json$/);
    // Nothing loose left: nothing to do.
    assert.equal(fileLooseRun('cico-1', results, { from: cwd, say: (l) => said.push(l) }), false);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

test('fileLooseRun never overwrites a run\'s summary, and ignores what is not a test id', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'fp-loose-'));
  try {
    const results = join(cwd, 'results');
    mkdirSync(join(results, 'cico-2'), { recursive: true });
    writeFileSync(join(results, 'cico-2', 'summary.json'), 'kept');
    writeFileSync(join(cwd, looseSummaryPath('cico-2')), 'loose');
    assert.equal(fileLooseRun('cico-2', results, { from: cwd, say: () => {} }), false);
    assert.equal(readFileSync(join(results, 'cico-2', 'summary.json'), 'utf8'), 'kept');
    assert.ok(existsSync(join(cwd, looseSummaryPath('cico-2'))), 'the loose file is left where it was');
    writeFileSync(join(cwd, looseSummaryPath('x;id')), 'hostile');
    assert.equal(fileLooseRun('x;id', results, { from: cwd, say: () => {} }), false);
    assert.ok(!existsSync(join(results, 'x;id')));
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});
