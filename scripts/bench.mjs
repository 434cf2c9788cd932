// `npm run bench`: one table of medians (after warm-up) for n tokens and d = 64, comparing
// the engine's C++ natively (-O3), the same C++ as wasm in node and in headless Chromium,
// the public JS API (including its copies) in node and in Chromium, a plain-JS Float64Array
// reference, and numpy with the reference BLAS and with single-threaded OpenBLAS.
// Ratios come from the same run, since absolute times on shared machines drift.
// Then a second table: the page's latency from an edit to every panel in view updated (pageLatency),
// and a third: each frame's work while a number or the temperature is dragged (dragLatency).
// And a fourth: models (runModel and an Adam step) against PyTorch (modelSection), and the
// matmul kernel built with relaxed SIMD against the product's SIMD128 (relaxedSimdSection).
//   node scripts/bench.mjs [--sizes 8,64,512,2048] [--d 64] [--rounds 5] [--page-only] [--drag-only] [--large-only] [--model-only] [--relaxed-simd] [--training-only] [--model-view-only] [--elements]
// --large-only prints the page's n = 4096 scenarios alone, --drag-only the drag table alone
// (neither writes docs/performance.md); --model-only measures and writes the models' section alone,
// --relaxed-simd the relaxed-SIMD section alone, --elements the many-elements section (elementsSection)
// alone, --training-only the live training's (trainingSection), --model-view-only the model view's (modelViewSection).
import { readFileSync } from 'node:fs';
import { bootstrap } from './bootstrap.mjs';
import { buildDist } from './build.mjs';
import { engineSection } from './bench/engine.mjs';
import { pageSection, dragSection } from './bench/page.mjs';
import { elementsSection } from './bench/elements.mjs';
import { modelSection } from './bench/model.mjs';
import { trainingSection } from './bench/training.mjs';
import { modelViewSection } from './bench/model-view.mjs';
import { relaxedSimdSection } from './bench/relaxed-simd.mjs';
import { DOC, marker, machine, writeSection } from './bench/report.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const SIZES = arg('sizes', '8,64,512,2048').split(',').map(Number);
const D = Number(arg('d', '64'));

bootstrap({ purpose: 'bench' });
await buildDist();
const MACHINE = await machine(); // the load average before anything here runs
console.log(MACHINE);
if (process.argv.includes('--large-only')) {
  console.log(`\n${(await pageSection({ sizes: SIZES, d: D }, { largeOnly: true })).join('\n')}`);
  process.exit(0);
}
if (process.argv.includes('--drag-only')) {
  console.log(`\n${(await dragSection()).join('\n')}`);
  process.exit(0);
}
if (process.argv.includes('--elements')) {
  const lines = await elementsSection();
  writeSection('elements', [MACHINE, '', ...lines]);
  console.log(`\n${lines.join('\n')}`);
  process.exit(0);
}
if (process.argv.includes('--relaxed-simd')) {
  const lines = await relaxedSimdSection();
  writeSection('relaxed', [MACHINE, '', ...lines]);
  console.log(`\n${lines.join('\n')}`);
  process.exit(0);
}
if (process.argv.includes('--model-only')) {
  const lines = await modelSection();
  writeSection('model', [MACHINE, '', ...lines]);
  console.log(`\n${lines.join('\n')}`);
  process.exit(0);
}
if (process.argv.includes('--model-view-only')) {
  const lines = await modelViewSection();
  writeSection('modelview', [MACHINE, '', ...lines]);
  console.log(`\n${lines.join('\n')}`);
  process.exit(0);
}
if (process.argv.includes('--training-only')) {
  const lines = await trainingSection();
  writeSection('training', [MACHINE, '', ...lines]);
  console.log(`\n${lines.join('\n')}`);
  process.exit(0);
}
if (process.argv.includes('--page-only')) {
  writeSection('page', [MACHINE, '', ...(await pageSection({ sizes: SIZES, d: D })), '', ...(await dragSection())]);
  console.log(`\n${readFileSync(DOC, 'utf8').split(marker('page', false))[1].split(marker('page', true))[0].trim()}`);
  process.exit(0);
}

writeSection('engine', await engineSection({ sizes: SIZES, d: D, rounds: Number(arg('rounds', '5')), machine: MACHINE }));

const pageLines = [...(await pageSection({ sizes: SIZES, d: D })), '', ...(await dragSection())];
console.log(`\n${pageLines.join('\n')}`);
writeSection('page', [MACHINE, '', ...pageLines]);
const elementLines = await elementsSection();
console.log(`\n${elementLines.join('\n')}`);
writeSection('elements', [MACHINE, '', ...elementLines]);
const modelLines = await modelSection();
console.log(`\n${modelLines.join('\n')}`);
writeSection('model', [MACHINE, '', ...modelLines]);
const trainingLines = await trainingSection();
console.log(`\n${trainingLines.join('\n')}`);
writeSection('training', [MACHINE, '', ...trainingLines]);
const modelViewLines = await modelViewSection();
console.log(`\n${modelViewLines.join('\n')}`);
writeSection('modelview', [MACHINE, '', ...modelViewLines]);
const relaxedLines = await relaxedSimdSection();
console.log(`\n${relaxedLines.join('\n')}`);
writeSection('relaxed', [MACHINE, '', ...relaxedLines]);
