// Trains the models the page ships with our own engine (engine.trainModel, float64, in node)
// from data this script generates, seeded, and writes web/models/<name>.json and
// web/models/index.json. Re-running it writes the same bytes: the data come from mulberry32, the
// initial weights are uniform draws from it (no transcendental functions), and the engine gives
// the same bits natively and in wasm (the time a run took is printed, not written).
// tests/js/models-trained.test.mjs reruns the first steps and re-measures every role the cards
// claim; scripts/build.mjs copies the files to dist/models/, checking their sha256.
//   node scripts/train-models.mjs            train every model, write the files
//   node scripts/train-models.mjs induction  only the named model(s)
// The recipes are scripts/train/<name>.mjs, what they share scripts/train/common.mjs.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { INDUCTION, inductionData, inductionHeldOut, inductionScores, mulberry32 } from '../web/src/state/induction.js';
import { MODELS_DIR, LOSS_EVERY, loadEngine, meanLoss, percent } from './train/common.mjs';
import { trainInduction, buildInduction } from './train/induction.mjs';
import { ANIMAL, trainAnimal, buildAnimal, animalVocab, animalScores, animalHeldOut } from './train/animal-street.mjs';
import { LEARNER, trainLearner, buildLearner, learnerPairs, learnerVocab, learnerHeldOut, patternScores } from './train/learner-words.mjs';

const BUILDERS = { 'learner-words': buildLearner, 'animal-street': buildAnimal, induction: buildInduction };

async function main() {
  const names = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(BUILDERS);
  const engine = await loadEngine();
  mkdirSync(MODELS_DIR, { recursive: true });
  const indexFile = path.join(MODELS_DIR, 'index.json');
  const index = existsSync(indexFile) ? JSON.parse(readFileSync(indexFile, 'utf8')) : [];
  for (const name of names) {
    if (!BUILDERS[name]) throw new Error(`unknown model ${name}: one of ${Object.keys(BUILDERS).join(', ')}`);
    const entry = BUILDERS[name](engine);
    const at = index.findIndex((e) => e.name === name);
    if (at >= 0) index[at] = entry;
    else index.push(entry);
    console.log(`${name}: ${entry.about.en}`);
    for (const r of entry.roles) console.log(`  layer ${r.layer} head ${r.head} ${r.role}: ${r.description.en}`);
  }
  index.sort((a, b) => Object.keys(BUILDERS).indexOf(a.name) - Object.keys(BUILDERS).indexOf(b.name));
  writeFileSync(indexFile, `${JSON.stringify(index, null, 2)}\n`);
}

export const CONFIG = { INDUCTION, ANIMAL, LEARNER, LOSS_EVERY };
export { mulberry32, inductionData, inductionHeldOut, inductionScores };
export { trainInduction, trainAnimal, trainLearner, percent, meanLoss };
export { MODELS_DIR, loadEngine, animalVocab, animalScores, animalHeldOut, learnerPairs, learnerVocab, learnerHeldOut, patternScores };

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
