// "How it learns": the learned presets reproduce from their script and
// learned what they say; the state's `learn` field is validated like the
// rest (hostile values included). The gradients the page shows are the
// engine's (api-backward-seed.test.mjs checks them against torch).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tutorialState } from '../../web/src/state/presets.js';
import { validateState, fitLearn } from '../../web/src/state/schema.js';
import { encodeHash, decodeHash } from '../../web/src/state/link.js';
import { describe } from '../../web/src/ui/i18n.js';
import {
  goalTarget, addWeight, pickCell, clearRow, goalFloor, stopReason, unreachableReason, STOP_RULE,
} from '../../web/src/state/learnmath.js';
import { LEARNED } from '../../web/src/state/learned-data.js';
import { learnedState } from '../../web/src/state/learned.js';
import { tokenize } from '../../web/src/io/tokenize.js';
import { PRESETS } from '../../web/src/state/presets.js';
import { nestedArray } from './hostile-payloads.mjs';

test('the learned-preset script writes the committed file again, bit for bit', () => {
  const text = execFileSync(process.execPath, ['scripts/make-learned-presets.mjs', '--print'], { encoding: 'utf8' });
  assert.equal(text, readFileSync('web/src/state/learned-data.js', 'utf8'));
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

// issue 31 item 8: "How it learns" ran to its 3000-step cap on a goal reached at step 62 or stuck
// at 0.3662 from step 56. The stop rule on made-up loss curves whose stop step is known by hand.
test('a training run never runs on: it stops when the goal is reached, on a plateau, or at the cap, and says which', () => {
  assert.equal(goalFloor([[1, 0], [0, 1]]), 0);
  // a free row adds nothing; [0.5, 0.5] allows no less than ln 2 in its row
  assert.ok(Math.abs(goalFloor([[0.5, 0.5], [0, 0]]) - Math.log(2) / 2) < 1e-15);
  const run = (f, steps) => Array.from({ length: steps + 1 }, (_, k) => f(k));
  const stopsAt = (losses, floor) => {
    for (let k = 1; k < losses.length; k++) {
      const reason = stopReason(losses.slice(0, k + 1), floor);
      if (reason) return [reason, k];
    }
    return [null, losses.length - 1];
  };
  // 1.1 · 0.8^k falls below 1e-3 (the rule's gap) at k = ceil(ln(1.1e3) / ln 1.25) = 32
  assert.deepEqual(stopsAt(run((k) => 1.1 * 0.8 ** k, 100), 0), ['converged', 32]);
  // the same toward a floor of ln 2 / 2: reached within the gap of the floor, not of 0
  const floor = Math.log(2) / 2;
  assert.deepEqual(stopsAt(run((k) => floor + 1.1 * 0.8 ** k, 100), floor), ['converged', 32]);
  // stuck at ln 3 / 3 above a floor of 0 (the tutorial's "previous word"): 0.3662 + 0.7 · 0.9^k.
  // From step 50 on, the best of the last 50 steps is compared with the best before them:
  // 0.7 · 0.9^(k−50) · (1 − 0.9^50) < 0.01 · (0.3662 + 0.7 · 0.9^k) first at k = 100
  const stuck = Math.log(3) / 3;
  const gain = (k) => 0.7 * 0.9 ** (k - 50) * (1 - 0.9 ** 50) < 0.01 * (stuck + 0.7 * 0.9 ** k);
  assert.equal(gain(99), false);
  assert.equal(gain(100), true);
  assert.deepEqual(stopsAt(run((k) => stuck + 0.7 * 0.9 ** k, 500), 0), ['plateau', 100]);
  // a loss that swings up and down (a rate too high) without getting lower than at step 4 is a
  // plateau once step 4 is before the last 50 steps: at step 54
  assert.deepEqual(stopsAt(run((k) => (k < 5 ? 1 - k / 10 : 0.6 + 0.05 * (k % 2)), 200), 0), ['plateau', 54]);
  // a slow but steady fall (5 % of what is left every 50 steps) goes on to the cap
  assert.deepEqual(stopsAt(run((k) => 0.9 * 0.999 ** k, 3000), 0), ['cap', STOP_RULE.maxSteps]);
  assert.equal(stopReason([1.1], 0), null);
});

test('the reason a goal cannot be reached is found in the inputs, and only where it is there', () => {
  const tokens = ['我', '爱', '你'];
  const tutorialX = [[1, 0], [0.5, 0.5], [0, 1]];
  // 爱 = (我 + 你) / 2: "previous word" asks row 你 for 爱, "itself" asks row 爱 for 爱
  assert.deepEqual(unreachableReason(tutorialX, goalTarget('previous', tokens, tokens)), { key: 1, p: 0, q: 2, a: 0.5, row: 2 });
  assert.deepEqual(unreachableReason(tutorialX, goalTarget('self', tokens, tokens)), { key: 1, p: 0, q: 2, a: 0.5, row: 1 });
  // a goal that asks 爱 for no more than the mean of what 我 and 你 get is not refused
  assert.equal(unreachableReason(tutorialX, [[1, 0, 0], [0, 0, 1], [0.2, 0.3, 0.5]]), null);
  // half on 爱 is more than the mean of half on 我 and none on 你
  assert.deepEqual(unreachableReason(tutorialX, [[0.5, 0.5, 0], [0, 0, 0], [0, 0, 0]]), { key: 1, p: 0, q: 2, a: 0.5, row: 0 });
  // a key masked in the row that asks for it: that row is left out
  const masked = [[false, false, false], [false, false, false], [false, true, false]];
  assert.equal(unreachableReason(tutorialX, goalTarget('previous', tokens, tokens), masked), null);
  // 3 of 4 keys spread apart, the 4th a quarter of the way from k0 to k2: a = 0.75
  const spread = [[2, 0], [0, 3], [-2, 1], [1, 0.25]];
  assert.deepEqual(unreachableReason(spread, [[0, 0, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]), { key: 3, p: 0, q: 2, a: 0.75, row: 0 });
  // outside the segment (an affine mix with a weight below 0) scores can exceed both: no reason
  assert.equal(unreachableReason([[2, 0], [0, 3], [-2, 1], [4, -0.5]], [[0, 0, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]), null);
  // two keys with the same vector always get the same weight
  const twice = [[1, 2], [0, 1], [1, 2]];
  assert.deepEqual(unreachableReason(twice, [[0, 0, 1], [0, 0, 0], [0, 0, 0]]), { key: 2, p: 0, q: 0, a: 1, row: 0 });
  assert.equal(unreachableReason(twice, [[0.5, 0, 0.5], [0, 1, 0], [0, 0, 0]]), null);
  // the other presets' "previous word" has no such key: no reason shown there
  const cat = tokenize(PRESETS.previous.sentence, PRESETS.previous.mode);
  assert.equal(unreachableReason(PRESETS.previous.x, goalTarget('previous', cat, cat)), null);
});
