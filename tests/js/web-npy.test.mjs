// .npy files written by numpy itself (/usr/bin/python3) and by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { parseNpy } from '../../web/src/io/npy.js';
import { describe } from '../../web/src/ui/i18n.js';

const MATRIX = [[1, -0.5, 0.1], [1e-300, 3.25, 2 ** 40]];

// The bytes numpy writes for np.array(MATRIX, dtype, order).save.
function numpySave(code) {
  const script = `import io, sys, numpy as np\nm = np.array(${JSON.stringify(MATRIX)})\nb = io.BytesIO()\n${code}\nsys.stdout.buffer.write(b.getvalue())`;
  return new Uint8Array(execFileSync('/usr/bin/python3', ['-c', script]));
}

test('float64 and float32 in C and Fortran order, little- and big-endian', () => {
  const f32 = MATRIX.map((row) => row.map(Math.fround));
  const cases = [
    ['np.save(b, m)', MATRIX],
    ['np.save(b, np.asfortranarray(m))', MATRIX],
    ['np.save(b, m.astype(np.float32))', f32],
    ['np.save(b, np.asfortranarray(m.astype(np.float32)))', f32],
    ['np.save(b, m.astype(">f8"))', MATRIX],
    ['np.lib.format.write_array(b, m, version=(2, 0))', MATRIX],
  ];
  for (const [code, expected] of cases) {
    const result = parseNpy(numpySave(code));
    assert.equal(result.ok, true, code);
    assert.deepEqual(result.rows, expected, code);
  }
});

test('what cannot be a matrix gets a clear message in both languages', () => {
  const message = (code) => {
    const result = parseNpy(numpySave(code));
    assert.equal(result.ok, false, code);
    return [describe('en', result.message), describe('zh', result.message)];
  };
  assert.match(message('np.save(b, m.astype(np.int64))')[0], /^unsupported dtype <i8: only float64/);
  assert.match(message('np.save(b, m.astype(np.complex128))')[0], /^unsupported dtype <c16/);
  assert.match(message('np.save(b, m.astype(np.float16))')[1], /^不支持的数据类型 <f2/);
  assert.equal(message('np.save(b, m[0])')[0], 'shape (3,) is not a matrix: it must be (rows, columns), both at least 1.');
  assert.equal(message('np.save(b, m.reshape(1, 2, 3))')[0], 'shape (1, 2, 3) is not a matrix: it must be (rows, columns), both at least 1.');
  assert.equal(message('np.save(b, np.zeros((0, 2)))')[0], 'shape (0, 2) is not a matrix: it must be (rows, columns), both at least 1.');
  assert.equal(message('np.save(b, np.array([[1.0, np.nan]]))')[0], 'row 1, column 2 is NaN: only finite numbers can be used.');
});

test('corrupt files: not npy, truncated, damaged header', () => {
  const good = numpySave('np.save(b, m)');
  const say = (bytes) => describe('en', parseNpy(bytes).message);
  assert.equal(say(new TextEncoder().encode('1,2\n3,4\n')), 'not a NumPy .npy file (wrong header), or the file is corrupt.');
  assert.equal(say(good.slice(0, good.length - 8)), 'wrong data length: shape (2, 3) needs 48 bytes, the file has 40. It may be truncated or corrupt.');
  assert.equal(say(good.slice(0, 20)), 'the .npy header cannot be read; the file may be corrupt.');
  const damaged = good.slice();
  damaged.set(new TextEncoder().encode('XXXXX'), 12);
  assert.equal(say(damaged), 'the .npy header cannot be read; the file may be corrupt.');
  const future = good.slice();
  future[6] = 9;
  assert.equal(say(future), 'unsupported .npy format version 9.0.');
  assert.equal(parseNpy(good.buffer).ok, true); // an ArrayBuffer works as well
});
