// engine/check.js: a learner's value for a cell is right to the decimals written, or its mistake is
// named, against the wrong values numpy computes for each mistake (tests/make_check_fixtures.py).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createAttentionEngine } from './fixtures.mjs';
import { MISTAKES, checkAnswer, readTyped } from '../../web/src/engine/check.js';

const engine = await createAttentionEngine();
const { cases } = JSON.parse(readFileSync(new URL('../fixtures/check_cases.json', import.meta.url), 'utf8'));
const TUTORIAL = cases.find((c) => c.case === 'tutorial').input;
const TOKENS = ['我', '爱', '你'];
const CHINESE = /[\u4e00-\u9fff]/;

test('every mistake numpy computes is named from its digits, with its value and the true one', () => {
  const named = Object.fromEntries(MISTAKES.map((m) => [m, 0]));
  for (const c of cases) {
    const all = Object.entries(c.mistakes).flatMap(([code, values]) => values.map((value) => ({ code, value })));
    for (const [index, { code, value }] of all.entries()) {
      const typed = value.toFixed(6);
      const near = (v) => Math.abs(v - Number(typed)) <= 5e-7 + 1e-15;
      // a value that other computations give too cannot be told apart: left out
      if (near(c.expected) || all.some((other, k) => k !== index && other.code !== code && near(other.value))) continue;
      const r = checkAnswer(engine, c.input, c.cell, typed);
      const where = `${c.case} ${JSON.stringify(c.cell)} ${code} ${typed}`;
      assert.equal(r.correct, false, where);
      assert.equal(r.mistake, code, where);
      assert.ok(Math.abs(r.wrong - value) <= 1e-12, `${where}: the mistake's value ${r.wrong}`);
      assert.ok(Math.abs(r.expected - c.expected) <= 1e-12, `${where}: the true value ${r.expected}`);
      named[code] += 1;
    }
  }
  for (const code of MISTAKES.filter((m) => m !== 'truncated')) assert.ok(named[code] >= 2, `${code} checked ${named[code]} times`);
});

test('the true value, to the decimals written, is right; cut digits are said to be cut', () => {
  for (const c of cases) {
    for (const places of [2, 4, 8]) {
      const r = checkAnswer(engine, c.input, c.cell, c.expected.toFixed(places));
      assert.equal(r.correct, true, `${c.case} ${JSON.stringify(c.cell)} ${places}`);
      assert.equal(r.mistake, null);
      assert.ok(Math.abs(r.expected - c.expected) <= 1e-12);
    }
  }
  // Weights[我, 我] = 0.33569311: 0.3357 is right, 0.3356 cuts the digits off, 0.34 is right
  const cell = { matrix: 'weights', row: 0, column: 0 };
  assert.equal(checkAnswer(engine, TUTORIAL, cell, '0.34').correct, true);
  const cut = checkAnswer(engine, TUTORIAL, cell, '0.3356', { tokens: TOKENS });
  assert.deepEqual([cut.correct, cut.mistake], [false, 'truncated']);
  assert.equal(cut.explanation.en, 'Not quite: Weights[我, 我] is 0.3357 to 4 decimals; you wrote 0.3356. You cut the digits off instead of rounding: 0.33569311 rounds to 0.3357.');
  assert.equal(checkAnswer(engine, TUTORIAL, cell, 0.3357).correct, true, 'a number: its shortest text sets the decimals');
  assert.equal(checkAnswer(engine, TUTORIAL, cell, '0.3').mistake, null, '0.3 is 0.3357 cut to 1 decimal, and that also rounds: right');
});

test('the explanation names the cell by its tokens and says the mistake in zh and en', () => {
  const says = (cell, typed) => checkAnswer(engine, TUTORIAL, cell, typed, { tokens: TOKENS }).explanation;
  const misprint = says({ matrix: 'weights', row: 0, column: 0 }, '0.33614837');
  assert.equal(misprint.en, 'Not quite: Weights[我, 我] is 0.33569311 to 8 decimals; you wrote 0.33614837. 0.33614837 is what the tutorial prints, and it is a misprint: the tutorial’s own numpy code gives 0.33569311.');
  assert.match(misprint.zh, /^不对：Weights\[我, 我\] 保留 8 位小数是 0\.33569311，你写的是 0\.33614837。/);
  assert.match(misprint.zh, /教程印出的数，但那是印错的/);
  const swapped = says({ matrix: 'scores', row: 0, column: 1 }, '0.24');
  assert.match(swapped.en, /0\.24 is Scores\[爱, 我\]: row and column the other way round \(Kᵀ misread, or W_Q and W_K swapped/);
  assert.match(swapped.zh, /0\.24 是 Scores\[爱, 我\]：行和列对调了/);
  const unscaled = says({ matrix: 'scaled', row: 1, column: 1 }, '0.29');
  assert.match(unscaled.en, /Without the division by √d_k \(√2 = 1\.4142\) it is 0\.29/);
  const slip = says({ matrix: 'scores', row: 1, column: 2 }, '0.28');
  assert.match(slip.en, /In the sum for Scores\[爱, 你\], the term Q\[爱, d1\]·K\[你, d1\] = 0\.3000 × 0\.2000 = 0\.0600 was left out: that gives 0\.28\./);
  assert.match(slip.zh, /Q\[爱, d1\]·K\[你, d1\] = 0\.3000 × 0\.2000 = 0\.0600 这一项漏掉了/);
  const right = says({ matrix: 'output', row: 0, column: 0 }, '0.551');
  assert.equal(right.en, 'Right: Output[我, d1] is 0.551 to the 3 decimals you wrote.');
  assert.equal(right.zh, '对了：Output[我, d1] 保留 3 位小数是 0.551。');
  for (const text of [misprint, swapped, unscaled, slip, right]) {
    assert.ok(CHINESE.test(text.zh) && !CHINESE.test(text.en.replace(/[我爱你]/g, '')), text.en);
  }
});

test('a head of several, the combined output, and bad arguments with their codes', () => {
  const multi = cases.find((c) => c.case === 'multi' && c.cell.head === 1);
  const named = checkAnswer(engine, multi.input, multi.cell, multi.expected.toFixed(4), { tokens: ['a', 'b', 'c'] });
  assert.match(named.explanation.en, /^Right: Scores\[c, a\] \(2\) is /);
  const bad = [
    [{ matrix: 'softmax', row: 0, column: 0 }, '1', 'unknown_matrix'],
    [{ matrix: 'weights', row: 3, column: 0 }, '1', 'range'],
    [{ matrix: 'weights', row: 0, column: -1 }, '1', 'range'],
    [{ matrix: 'weights', row: 0, column: 0, head: 2 }, '1', 'range'],
    [{ matrix: 'weights', row: 0, column: 0 }, 'abc', 'not_number'],
    [{ matrix: 'weights', row: 0, column: 0 }, '', 'not_number'],
    [{ matrix: 'weights', row: 0, column: 0 }, '1e999', 'not_finite'],
  ];
  for (const [cell, typed, code] of bad) {
    assert.throws(() => checkAnswer(engine, TUTORIAL, cell, typed), (e) => e.code === code, `${JSON.stringify(cell)} ${typed}`);
  }
});

test('the decimals written set the precision: text, signs, a comma, exponents', () => {
  assert.deepEqual(readTyped('0.34'), { value: 0.34, ulp: 0.01, places: 2, scientific: false });
  assert.deepEqual(readTyped(' −0.5 '), { value: -0.5, ulp: 0.1, places: 1, scientific: false });
  assert.equal(readTyped('0,25').value, 0.25);
  assert.equal(readTyped('12').ulp, 1);
  assert.ok(Math.abs(readTyped('1.2e-7').ulp - 1e-8) < 1e-22);
  assert.equal(readTyped(0.125).places, 3);
});
