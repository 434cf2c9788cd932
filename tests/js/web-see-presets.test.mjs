// The tutorial's misprints, as a learner meets them: each eight-digit value the tutorial prints
// (tests/fixtures/tutorial_printed.txt, its text copied verbatim), typed into the checker on the
// tutorial's inputs, is right where it is what numpy computes (tests/js/fixtures.mjs) and is
// named as the tutorial's misprint, with that value and the true one, where it is not.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createAttentionEngine, TUTORIAL_EXPECTED } from './fixtures.mjs';
import { checkAnswer } from '../../web/src/engine/check.js';

const engine = await createAttentionEngine();
const INPUT = {
  x: [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]],
  wq: [[0.5, 0.2], [0.1, 0.6]],
  wk: [[0.4, 0.3], [0.2, 0.7]],
  wv: [[0.8, 0.1], [0.3, 0.9]],
};
const TOKENS = ['我', '爱', '你'];

// The blocks under 步骤3, 4 and 5, each a numpy print of a matrix: "[[a b c]\n [d e f]]".
const text = readFileSync(new URL('../fixtures/tutorial_printed.txt', import.meta.url), 'utf8');
const blocks = text.split(/^=== .* ===$/m).slice(1).map((block) => block.trim().split('\n').map((line) => line.replace(/[[\]]/g, '').trim().split(/\s+/)));
const PRINTED = { scaled: blocks[0], weights: blocks[1], output: blocks[2] };

test('each value the tutorial prints, typed into the checker: right where numpy agrees, else named as its misprint', () => {
  const seen = { right: [], misprint: [] };
  for (const [matrix, rows] of Object.entries(PRINTED)) {
    assert.deepEqual([rows.length, rows[0].length], [TUTORIAL_EXPECTED[matrix].length, TUTORIAL_EXPECTED[matrix][0].length], `${matrix}: the printed block's shape`);
    rows.forEach((row, i) => row.forEach((typed, j) => {
      const where = `${matrix}[${i}][${j}] typed ${typed}`;
      const truth = TUTORIAL_EXPECTED[matrix][i][j];
      const places = typed.split('.')[1].length;
      const right = Math.abs(Number(typed) - truth) <= 0.5 * 10 ** -places;
      const r = checkAnswer(engine, INPUT, { matrix, row: i, column: j }, typed, { tokens: TOKENS });
      assert.equal(r.correct, right, where);
      assert.ok(Math.abs(r.expected - truth) <= 1e-12, `${where}: the true value ${r.expected}`);
      if (right) {
        assert.equal(r.mistake, null, where);
        seen.right.push(`${matrix}[${i}][${j}]`);
        return;
      }
      assert.equal(r.mistake, 'misprint', where);
      assert.equal(r.wrong, Number(typed), `${where}: the misprint's value`);
      assert.ok(r.explanation.en.includes(`${typed} is what the tutorial prints, and it is a misprint: the tutorial’s own numpy code gives ${truth.toPrecision(8)}.`), `${where}: ${r.explanation.en}`);
      assert.match(r.explanation.zh, /教程印出的数，但那是印错的/, where);
      seen.misprint.push(`${matrix}[${i}][${j}]`);
    }));
  }
  // REFERENCE.md: Scaled[1][1] and every weight and output are misprinted, the rest of Scaled is right
  assert.deepEqual(seen.right, ['scaled[0][0]', 'scaled[0][1]', 'scaled[0][2]', 'scaled[1][0]', 'scaled[1][2]', 'scaled[2][0]', 'scaled[2][1]', 'scaled[2][2]']);
  assert.equal(seen.misprint.length, 1 + 9 + 6);
});
