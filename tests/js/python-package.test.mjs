// The Python package (hosts/python/attention_visualizer), as a user gets it: the wheel that
// `npm run build` writes (dist/python/) installed offline (pip install --no-index) into a fresh
// venv of Debian's python3 (--system-site-packages, so that Debian's python3-torch and pip are
// seen; --without-pip saves ensurepip's 8 s), and
// tests/python/test_package.py run by that venv's python against the installed copy. These tests
// need torch: without it they fail, saying so (bootstrap installs python3-torch). from_torch's
// models then go through the engine's runModel, which must equal torch's forward (computed live
// by the same run, float64) to 1e-12.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { WHEEL } from '../../scripts/build.mjs';
import { createAttentionEngine } from './fixtures.mjs';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const DIR = mkdtempSync(path.join(tmpdir(), 'av-python-'));
const VENV = path.join(DIR, 'venv');
const PYTHON = path.join(VENV, 'bin/python');
// no bytecode next to the sources, no pip version check over the network
const ENV = { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PIP_DISABLE_PIP_VERSION_CHECK: '1', PIP_NO_INDEX: '1' };
let unittest = null;

before(async () => {
  await run('/usr/bin/python3', ['-m', 'venv', '--system-site-packages', '--without-pip', VENV], { env: ENV });
  await run(PYTHON, ['-m', 'pip', 'install', '--no-index', '--no-deps', '--quiet', WHEEL], { env: ENV });
  // run outside the repository, so that only the installed package can be imported
  unittest = await run(PYTHON, [path.join(ROOT, 'tests/python/test_package.py')], { cwd: DIR, env: { ...ENV, AV_CASES: DIR } })
    .catch((error) => error);
});
after(() => rmSync(DIR, { recursive: true, force: true }));

test('the wheel installs offline into a fresh venv; show, show_torch (every layout, mask, bad input), save and from_torch pass against torch', () => {
  assert.ok(!(unittest instanceof Error), unittest instanceof Error ? `${unittest.stdout}${unittest.stderr}` : '');
  assert.match(unittest.stderr, /^Ran 1\d tests in/m);
});

test('the wheel holds the element script dist/ built, and its RECORD lists every file with its sha256', async () => {
  const script = `
import base64, hashlib, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    names = z.namelist()
    record = z.read([n for n in names if n.endswith(".dist-info/RECORD")][0]).decode()
    for line in record.splitlines():
        path, digest, size = line.rsplit(",", 2)
        if digest:
            data = z.read(path)
            assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode(), path
            assert int(size) == len(data), path
    assert sorted(line.rsplit(",", 2)[0] for line in record.splitlines()) == sorted(names)
    sys.stdout.buffer.write(z.read("attention_visualizer/attention-visualizer.js"))
`;
  const { stdout } = await run('/usr/bin/python3', ['-c', script, WHEEL], { maxBuffer: 1 << 26, encoding: 'buffer' });
  assert.ok(stdout.equals(readFileSync(path.join(ROOT, 'dist/attention-visualizer.js'))));
});

// max |a − b| over two matrices (arrays of rows)
function maxDiff(a, b) {
  assert.equal(a.length, b.length);
  return Math.max(...b.map((row, i) => {
    assert.equal(a[i].length, row.length);
    return Math.max(...row.map((v, j) => Math.abs(a[i][j] - v)));
  }));
}

test('from_torch: runModel on the exported model equals torch\'s forward to 1e-12 (encoder stacks, TinyGPT tied and free)', async () => {
  assert.ok(!(unittest instanceof Error), 'the Python tests failed: see the first test');
  const cases = JSON.parse(readFileSync(path.join(DIR, 'models.json'), 'utf8'));
  assert.equal(cases.length, 4);
  const engine = await createAttentionEngine();
  for (const c of cases) {
    const got = engine.runModel(c.model, c.ids);
    c.residual.forEach((want, l) => assert.ok(maxDiff(got.residual[l], want) < 1e-12, `${c.name}: residual ${l}`));
    if (c.finalInput) assert.ok(maxDiff(got.finalInput, c.finalInput) < 1e-12, `${c.name}: finalInput`);
    if (c.logits) assert.ok(maxDiff(got.logits, c.logits) < 1e-12, `${c.name}: logits`);
  }
});
