// The shipped models (web/models/, written by scripts/train-models.mjs with engine.trainModel):
// the script's first training steps reproduce each file's recorded losses bit for bit, each file
// matches the sha256 its index.json entry records, and every role a card claims, and the held-out
// loss it prints, re-measured with runModel/modelGradients on the held-out inputs equal the
// recorded figures.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  CONFIG,
  MODELS_DIR,
  animalHeldOut,
  animalScores,
  inductionHeldOut,
  inductionScores,
  learnerHeldOut,
  learnerVocab,
  loadEngine,
  meanLoss,
  patternScores,
  percent,
  trainAnimal,
  trainInduction,
  trainLearner,
} from '../../scripts/train-models.mjs';

const engine = await loadEngine();
const index = JSON.parse(readFileSync(path.join(MODELS_DIR, 'index.json'), 'utf8'));
const text = (file) => readFileSync(path.join(MODELS_DIR, file), 'utf8');
const load = (name) => JSON.parse(text(index.find((e) => e.name === name).file));
const SHORT = 2 * CONFIG.LOSS_EVERY + 1; // steps: losses 0, 50 and 100 are in the record

// A role's description in both languages prints its claimed figure, and every percentage it
// prints is one of the head's re-measured scores.
function assertFigures(role, value, scores) {
  const allowed = new Set(Object.values(scores).map(percent));
  for (const lang of ['zh', 'en']) {
    const text = role.description[lang];
    assert.ok(text.includes(percent(value)), `${lang}: ${text}`);
    for (const p of text.match(/[0-9.]+%/g)) assert.ok(allowed.has(p), `${lang}: ${p} is not a measured figure of layer ${role.layer} head ${role.head}: ${text}`);
  }
}

test('index.json lists each model with its title, about and roles in zh and en', () => {
  assert.deepEqual(index.map((e) => e.name), ['learner-words', 'animal-street', 'induction']);
  for (const e of index) {
    for (const field of [e.title, e.about]) assert.ok(field.zh && field.en, `${e.name}: zh and en`);
    assert.ok(e.roles.length > 0, e.name);
    for (const r of e.roles) {
      assert.ok(Number.isInteger(r.layer) && Number.isInteger(r.head) && r.role && r.description.zh && r.description.en, JSON.stringify(r));
      assert.ok(Buffer.byteLength(text(e.file)) < 200_000, `${e.file} is small enough for a phone`);
    }
  }
});

test('every model file matches the sha256 index.json records and carries its training record', () => {
  for (const e of index) {
    assert.equal(createHash('sha256').update(text(e.file)).digest('hex'), e.sha256, e.file);
    const t = JSON.parse(text(e.file)).training;
    assert.equal(t.script, 'scripts/train-models.mjs');
    for (const key of ['data', 'steps', 'seed', 'losses', 'heldOutLoss', 'baselineLoss']) assert.ok(t[key] !== undefined, `${e.file}: training.${key}`);
    assert.ok(t.heldOutLoss < t.baselineLoss, `${e.file}: held-out loss ${t.heldOutLoss} beats the baseline ${t.baselineLoss}`);
  }
});

for (const [name, trainIt] of [
  ['learner-words', trainLearner],
  ['induction', trainInduction],
  ['animal-street', trainAnimal],
]) {
  test(`${name}: a short seeded run of the script reproduces the recorded losses bit for bit`, () => {
    const recorded = load(name).training.losses;
    const { losses } = trainIt(engine, { steps: SHORT });
    assert.deepEqual([losses[0], losses[CONFIG.LOSS_EVERY], losses[2 * CONFIG.LOSS_EVERY]], recorded.slice(0, 3));
  });
}

// role name → the score of inductionScores() it is measured by
const INDUCTION_SCORE = { induction: 'induction', 'previous-token': 'previous' };

test('induction: every role the card claims holds on the held-out sequences, at the printed figure', () => {
  const entry = index.find((e) => e.name === 'induction');
  const model = load('induction');
  const heldOut = inductionHeldOut();
  const scores = inductionScores(engine, model, heldOut);
  assert.deepEqual(scores, model.training.headScores);
  assert.ok(entry.roles.some((r) => r.role === 'induction'), 'an induction head');
  for (const r of entry.roles) {
    const value = scores[r.layer][r.head][INDUCTION_SCORE[r.role]];
    assert.equal(r.measured.value, value, `layer ${r.layer} head ${r.head}`);
    assert.ok(value >= 0.4, `${r.role} ${value}`);
    assertFigures(r, value, scores[r.layer][r.head]);
  }
  assert.equal(meanLoss(engine, model, heldOut), model.training.heldOutLoss);
});

test('animal-street: "it" flips from the animal to the street on noun pairs never trained on, at the printed rate', () => {
  const entry = index.find((e) => e.name === 'animal-street');
  const model = load('animal-street');
  const flips = animalHeldOut();
  assert.deepEqual(flips[0][0].words.join(' '), "the animal didn't cross the street because it was too tired");
  assert.ok(model.training.heldOutPairs.includes('animal street'));
  const scores = animalScores(engine, model, flips);
  assert.deepEqual(scores.heads, model.training.headScores);
  assert.equal(scores.predicted, model.training.predicted);
  for (const lang of ['zh', 'en']) assert.ok(entry.about[lang].includes(percent(scores.predicted)), entry.about[lang]);
  assert.ok(entry.roles.some((r) => r.role === 'coreference'), 'a coreference head');
  for (const r of entry.roles) {
    const s = scores.heads[r.layer][r.head];
    const value = r.role === 'coreference' ? s.flip : s.onAdjective;
    assert.equal(r.measured.value, value, `layer ${r.layer} head ${r.head}`);
    assertFigures(r, value, s);
  }
  assert.equal(meanLoss(engine, model, flips.flat()), model.training.heldOutLoss);
});

test('learner-words: 2 layers, 4 heads, 我爱你 in its vocabulary, and every role it names holds on held-out sentence pairs at the printed figure', () => {
  const entry = index.find((e) => e.name === 'learner-words');
  const model = load('learner-words');
  assert.ok(model.layers.length >= 2 && model.layers.every((l) => l.heads.length >= 4));
  for (const t of ['我', '爱', '你', 'i', 'love', 'you']) assert.ok(model.vocab.includes(t), t);
  assert.deepEqual(model.vocab, learnerVocab());
  const heldOut = learnerHeldOut();
  assert.ok(!model.training.heldOutPairs.some((p) => p.startsWith('i love you .')), 'i love you = 我爱你 is trained on');
  assert.ok(heldOut.every(({ words }) => words[0] === '<s>'));
  const scores = patternScores(engine, model, heldOut);
  assert.deepEqual(scores, model.training.headScores);
  assert.ok(entry.roles.length > 0);
  for (const r of entry.roles) {
    const value = scores[r.layer][r.head][r.role];
    assert.equal(r.measured.value, value, `layer ${r.layer} head ${r.head}`);
    assert.ok(value >= 0.4, `${r.role} ${value}`);
    assertFigures(r, value, scores[r.layer][r.head]);
  }
  assert.equal(meanLoss(engine, model, heldOut), model.training.heldOutLoss);
});
