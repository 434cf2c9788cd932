// "How it learns": the learned presets reproduce from their script and
// learned what they say; the state's `learn` field is validated like the
// rest (hostile values included). The gradients the page shows are the
// engine's (api-backward-seed.test.mjs checks them against torch).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tutorialState, validateState, encodeHash, decodeHash, fitLearn } from '../../web/src/share.js';
import { describe } from '../../web/src/i18n.js';
import { goalTarget, addWeight, pickCell, clearRow } from '../../web/src/learnmath.js';
import { LEARNED } from '../../web/src/learned-data.js';
import { learnedState } from '../../web/src/learned.js';
import { tokenize } from '../../web/src/tokenize.js';
import { PRESETS } from '../../web/src/presets.js';
import { nestedArray } from './hostile-payloads.mjs';

test('the learned-preset script writes the committed file again, bit for bit', () => {
  const text = execFileSync(process.execPath, ['scripts/make-learned-presets.mjs', '--print'], { encoding: 'utf8' });
  assert.equal(text, readFileSync('web/src/learned-data.js', 'utf8'));
});

// Plain softmax attention weights, independent of the engine.
function weightsOf({ x, wq, wk }) {
  const mul = (a, b) => a.map((row) => b[0].map((_, j) => row.reduce((s, v, k) => s + v * b[k][j], 0)));
  const q = mul(x, wq);
  const k = mul(x, wk);
  return q.map((qi) => {
    const s = k.map((kj) => qi.reduce((a, v, d) => a + v * kj[d], 0) / Math.sqrt(wq[0].length));
    const max = Math.max(...s);
    const e = s.map((v) => Math.exp(v - max));
    const sum = e.reduce((a, b) => a + b, 0);
    return e.map((v) => v / sum);
  });
}

test('each learned preset learned its goal: every goal row’s largest weight is on its target key', () => {
  assert.ok(Object.keys(LEARNED).length >= 3);
  for (const [name, preset] of Object.entries(LEARNED)) {
    const tokens = tokenize(preset.sentence, preset.mode);
    const target = goalTarget(preset.goal, tokens, tokens, null);
    const weights = weightsOf(preset);
    let rows = 0;
    target.forEach((row, i) => {
      if (!row.some(Boolean)) return;
      rows++;
      const best = weights[i].indexOf(Math.max(...weights[i]));
      assert.equal(best, row.indexOf(1), `${name}: row ${i}`);
    });
    assert.ok(rows >= 1, name);
    assert.ok(preset.lossAfter < preset.lossBefore / 100, `${name}: ${preset.lossBefore} → ${preset.lossAfter}`);
    const state = validateState(learnedState(name, { lang: 'en', decimals: 4 }));
    assert.ok(state.ok, name);
    assert.equal(state.state.learn.goal, preset.goal);
  }
});

test('the goals: previous, self, it → animal (other rows free) and painting a custom one', () => {
  const tokens = ['a', 'b', 'c'];
  assert.deepEqual(goalTarget('previous', tokens, tokens), [[1, 0, 0], [1, 0, 0], [0, 1, 0]]);
  assert.deepEqual(goalTarget('self', tokens, tokens), [[1, 0, 0], [0, 1, 0], [0, 0, 1]]);
  const animal = tokenize(PRESETS.animal.sentence, 'space');
  const t = goalTarget('animal', animal, animal);
  assert.deepEqual(t[7], animal.map((w) => (w === 'animal' ? 1 : 0)));
  assert.ok(t.every((row, i) => i === 7 || row.every((v) => v === 0)));
  let custom = pickCell([[0, 0], [0, 0]], 0, 1);
  assert.deepEqual(custom, [[0, 1], [0, 0]]);
  custom = addWeight(custom, 0, 0);
  assert.deepEqual(custom[0], [0.5, 0.5]);
  assert.deepEqual(addWeight(custom, 0, 1)[0], [0.25, 0.75]);
  assert.deepEqual(addWeight(custom, 1, 1)[1], [0, 1]); // a free row becomes one-hot
  assert.deepEqual(clearRow(custom, 0)[0], [0, 0]);
});

const learnState = (learn, base = tutorialState('en')) => ({ ...base, learn });
const refusal = (learn, base) => {
  const result = validateState(learnState(learn, base));
  assert.equal(result.ok, false);
  return describe('en', result.message);
};

test('validateState keeps a good learn field, round-trips it through the hash, and old links open', () => {
  const custom = { goal: 'custom', target: [[0, 1, 0], [0.25, 0.75, 0], [0, 0, 0]], lr: 0.1, trainX: true };
  const back = decodeHash(encodeHash(validateState(learnState(custom)).state));
  assert.ok(back.ok);
  assert.deepEqual(back.state.learn, custom);
  assert.deepEqual(validateState(learnState({ goal: 'previous' })).state.learn, { goal: 'previous' });
  const old = validateState(tutorialState('en'));
  assert.ok(old.ok);
  assert.equal(old.state.learn, undefined);
});

test('validateState refuses bad and hostile learn fields with a message naming the field', () => {
  assert.match(refusal(null), /learn.*must be an object/);
  assert.match(refusal([1]), /learn.*must be an object/);
  assert.match(refusal('previous'), /learn.*must be an object/);
  assert.match(refusal({ goal: 'previous', extra: 1 }), /learn\.extra/);
  assert.match(refusal({ goal: 'sideways' }), /learn\.goal.*one of previous, self, animal, custom/);
  assert.match(refusal({ goal: { toString: 1 } }), /learn\.goal/);
  assert.match(refusal({ goal: 'animal' }), /learn\.goal.*animal does not apply/);
  assert.match(refusal({ goal: 'previous', target: [[1, 0, 0], [1, 0, 0], [1, 0, 0]] }), /learn\.target.*only for goal custom/);
  assert.match(refusal({ goal: 'custom', target: [[1, 0], [1, 0], [1, 0]] }), /learn\.target.*3 × 3/);
  assert.match(refusal({ goal: 'custom', target: [[0.5, 0, 0], [1, 0, 0], [1, 0, 0]] }), /learn\.target.*summing to 1/);
  assert.match(refusal({ goal: 'custom', target: [[2, -1, 0], [1, 0, 0], [1, 0, 0]] }), /learn\.target/);
  assert.match(refusal({ goal: 'custom', target: [[NaN, 1, 0], [1, 0, 0], [1, 0, 0]] }), /learn\.target/);
  assert.match(refusal({ goal: 'custom', target: nestedArray(10000) }), /learn\.target/);
  assert.match(refusal({ goal: 'previous', lr: 1e308 }), /learn\.lr.*one of 0\.001/);
  assert.match(refusal({ goal: 'previous', lr: '0.05' }), /learn\.lr/);
  assert.match(refusal({ goal: 'previous', trainX: 'yes' }), /learn\.trainX.*true or false/);
  assert.match(refusal({ goal: 'custom', target: { length: 3 } }), /learn\.target/);
});

test('fitLearn drops what no longer applies after an edit of the tokens, and keeps what does', () => {
  const state = { ...tutorialState('en'), learn: { goal: 'custom', target: [[1, 0, 0], [1, 0, 0], [1, 0, 0]], lr: 0.1 } };
  assert.equal(fitLearn(state), state);
  const shorter = { ...state, tokens: ['a', 'b'], x: [[1, 0], [0, 1]], keyPadding: [false, false] };
  assert.deepEqual(fitLearn(shorter).learn, { goal: 'custom', lr: 0.1 });
  const animal = { ...tutorialState('en'), tokens: ['it', 'animal', 'x'], learn: { goal: 'animal' } };
  assert.deepEqual(fitLearn(animal).learn, { goal: 'animal' });
  assert.equal('learn' in fitLearn({ ...animal, tokens: ['it', 'cat', 'x'] }), false);
});
