// Finding a switch on a workflow's name (the rule of tests/unit/repo-workflow-switches.test.mjs),
// shared with tests/unit/workflows-fixture.test.mjs, which checks a new workflow against it.

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The regular expressions that find a switch on workflow `name`. */
export function switchPatterns(name) {
  const n = esc(name);
  const q = `(['"\`])${n}\\1`;
  return [
    new RegExp(`[=!]==?\\s*${q}`), // JS: x === 'name', x != "name"
    new RegExp(`${q}\\s*[=!]==?`), // JS: 'name' === x
    new RegExp(`\\bcase\\s+${q}\\s*:`), // JS: case 'name':
    new RegExp(`\\s!?==?\\s*["']?${n}["']?\\s*\\]`), // shell: [ "$W" = name ]
    new RegExp(`\\bin\\s+(\\S+\\|)?${n}(\\|\\S+)?\\)`), // shell: case $W in name) / in a|name)
    new RegExp(`^\\s*(\\S+\\s*\\|\\s*)?${n}(\\s*\\|\\s*\\S+)?\\)`), // shell: a case arm "name)" on its own line
    new RegExp(`\\$\\(filter\\s+${n}\\s*,`), // make: $(filter name,$(WORKFLOW))
    new RegExp(`\\bifn?eq\\s*\\(.*,\\s*${n}\\s*\\)`), // make: ifeq ($(WORKFLOW),name)
  ];
}

/** Whether `file` belongs to workflow `name`: a layer's file named after it, or its e2e suites. */
export function ownedBy(file, name) {
  const n = esc(name);
  return new RegExp(
    `^(lib/workflows/${n}\\.js|lib/${n}/.*|lib/k6/${n}(-[^/]+)?\\.js|tools/report/workflows/${n}\\.mjs|tools/run/workflows/${n}\\.mjs|dashboards/src/${n}(-[^/]+)?\\.mjs|tests/e2e/.*)$`,
  ).test(file);
}

/** [file:line: text] of every switch on a workflow name in `files` outside that workflow's own. */
export function switches(files, read, names) {
  const found = [];
  for (const f of files) {
    const lines = read(f).split('\n');
    for (const name of names) {
      if (ownedBy(f, name)) continue;
      const res = switchPatterns(name);
      lines.forEach((line, i) => {
        if (res.some((re) => re.test(line))) found.push(`${f}:${i + 1}: ${line.trim()}`);
      });
    }
  }
  return found;
}
