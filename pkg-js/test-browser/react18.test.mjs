// React 18 is a supported peer (README, "React"): run the whole React browser suite again with React
// 18.3.1 bundled into its page instead of the workspace's React 19.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const REACT_18 = '18.3.1';

test(`the React layer passes its browser suite with React ${REACT_18}`, { timeout: 240_000 }, (t) => {
  if (!existsSync('/usr/bin/chromium') && !process.env.CI) {
    t.skip('no /usr/bin/chromium (CI installs it)');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'warden-react18-'));
  try {
    writeFileSync(join(dir, 'package.json'), '{"private":true}');
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', `react@${REACT_18}`, `react-dom@${REACT_18}`], { cwd: dir, stdio: 'pipe' });
    // A test runner started from inside a test must not think it is a child of this one.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const run = spawnSync(process.execPath, ['--test', join(here, 'react.test.mjs')], {
      env: { ...env, WARDEN_REACT_DIR: join(dir, 'node_modules'), WARDEN_REACT_EXPECT: REACT_18 },
      encoding: 'utf8',
      timeout: 200_000,
    });
    const tail = `${run.stdout.slice(-3000)}\n${run.stderr.slice(-2000)}`;
    assert.equal(run.status, 0, tail);
    assert.match(run.stdout, /^# pass [1-9]\d*$/m, tail);
    assert.match(run.stdout, /^# fail 0$/m, tail);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
