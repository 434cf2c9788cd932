// What every recipe of scripts/train-models.mjs shares: the engine, the rounding of what is
// shipped, the losses (the engine's and the bigram baseline), the phased training, and the
// writing of a model file (its sha256 for index.json).
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomInt } from '../../web/src/state/induction.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const MODELS_DIR = path.join(ROOT, 'web/models');
export const SCRIPT = 'scripts/train-models.mjs';
export const LOSS_EVERY = 50; // the training block keeps every 50th batch's loss (full precision)
const DIGITS = 6; // shipped parameters keep 6 significant digits; every figure is measured on them

export function loadEngine() {
  return createRequire(import.meta.url)(path.join(ROOT, 'dist/attention-engine.js'))();
}

// Every parameter as plain arrays rounded to DIGITS significant digits (what is shipped).
function rounded(value) {
  if (typeof value === 'number') return Number(value.toPrecision(DIGITS));
  if (Array.isArray(value) || ArrayBuffer.isView(value)) return Array.from(value, rounded);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rounded(v)]));
  return value;
}

export function parametersOf(model) {
  const { embed, positions, layers, finalNorm, unembed } = model;
  return rounded({ embed, positions, layers, finalNorm, unembed });
}

// Mean cross-entropy (nats) over every target of `sequences`, by the engine's own loss.
export function meanLoss(engine, model, sequences) {
  let sum = 0;
  let count = 0;
  for (const { ids, targets } of sequences) {
    const n = targets.filter((t) => t >= 0).length;
    if (n === 0) continue;
    sum += engine.modelGradients(model, ids, targets).loss * n;
    count += n;
  }
  return sum / count;
}

// The baseline: add-one bigram counts of the training batches, scored on `sequences`.
export function bigramLoss(train, sequences, vocabSize) {
  const counts = Array.from({ length: vocabSize }, () => new Array(vocabSize).fill(1));
  for (const { ids, targets } of train) targets.forEach((t, i) => t >= 0 && counts[ids[i]][t]++);
  let sum = 0;
  let count = 0;
  for (const { ids, targets } of sequences) {
    targets.forEach((t, i) => {
      if (t < 0) return;
      const row = counts[ids[i]];
      sum -= Math.log(row[t] / row.reduce((a, b) => a + b, 0));
      count++;
    });
  }
  return sum / count;
}

// Trains `model` on `batches` (one sequence a batch, one Adam step each) in phases of constant
// learning rate ([{ steps, learningRate }]); each phase is one trainModel call, so its Adam moments start at 0.
export function train(engine, model, batches, phases) {
  const losses = [];
  let at = 0;
  for (const { steps, learningRate } of phases) {
    const r = engine.trainModel(model, { batches: batches.slice(at, at + steps).map(({ ids, targets }) => ({ ids, targets })), optimizer: 'adam', learningRate });
    model = r.model;
    losses.push(...r.losses);
    at += steps;
  }
  return { model, losses };
}

// one element of `list`, drawn by `rand`
export function pick(rand, list) {
  return list[randomInt(rand, list.length)];
}

export const percent = (x) => `${(100 * x).toFixed(1)}%`;

// ---- writing ---------------------------------------------------------------------------------

export function subsample(losses) {
  return losses.filter((_, i) => i % LOSS_EVERY === 0 || i === losses.length - 1);
}

export function writeModel(file, model) {
  const text = `${JSON.stringify(model)}\n`;
  writeFileSync(path.join(MODELS_DIR, file), text);
  return createHash('sha256').update(text).digest('hex');
}
