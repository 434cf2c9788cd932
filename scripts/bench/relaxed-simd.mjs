// The matmul kernel with relaxed SIMD (bench.mjs --relaxed-simd).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../build.mjs';
import { launchChromium, TIMER_SOURCE, fmt } from './common.mjs';

// Relaxed SIMD (issue 35): the engine's matmul kernel alone (tests/bench/relaxed_matmul.cpp), as
// three freestanding wasm modules in headless Chromium: Emscripten 3.1.6 with -msimd128 (the
// product's compiler, clang 14), Debian's clang-19 with -msimd128, and clang-19 with
// -mrelaxed-simd (each step one f64x2.relaxed_madd, fused on a CPU with FMA). clang-19 is not a
// dependency of anything else: without it (apt-get install clang-19 lld-19) the section says so.
const RELAXED_SHAPES = [
  // [m, k, n, what]: the bench models' products, then attention's at n = 512, d = 64
  [16, 64, 16, 'a head\'s X·W_Q, 16 tokens, dModel 64, d_k 16'],
  [16, 64, 256, 'the MLP\'s m·W1, 16 tokens, f 256'],
  [16, 256, 64, 'the MLP\'s act·W2, 16 tokens'],
  [32, 64, 64, 'W_O, 32 tokens'],
  [512, 64, 64, 'X·W_Q at n = 512, d 64'],
  [512, 512, 64, 'weights·V at n = 512'],
];

const RELAXED_ROUNDS = 5;

function relaxedModules(dir) {
  const source = path.join(ROOT, 'tests/bench/relaxed_matmul.cpp');
  const clang19 = (out, flags) => {
    // compiled, then linked by wasm-ld-19 itself: clang-19's driver would run the PATH's
    // wasm-opt (Emscripten's binaryen, which cannot read relaxed SIMD) after linking
    spawnOk('clang-19', ['--target=wasm32', '-O3', '-msimd128', '-mbulk-memory', '-fno-exceptions', ...flags, '-c', '-o', `${out}.o`, source]);
    spawnOk('wasm-ld-19', ['--no-entry', '--export=matmul', '--export=__heap_base', `--initial-memory=${64 << 20}`, '-o', `${out}.wasm`, `${out}.o`]);
    return readFileSync(`${out}.wasm`);
  };
  const emcc = path.join(dir, 'simd128-emscripten.wasm');
  spawnOk('em++', ['-O3', '-msimd128', '--no-entry', '-sSTANDALONE_WASM', `-sINITIAL_MEMORY=${64 << 20}`,
    '-sEXPORTED_FUNCTIONS=_matmul,___heap_base', '-o', emcc, source], { ...process.env, NODE_PATH: '/usr/share/nodejs' });
  return {
    'SIMD128, Emscripten 3.1.6 (clang 14)': readFileSync(emcc),
    'SIMD128, clang-19': clang19(path.join(dir, 'simd128-clang19'), []),
    'relaxed SIMD, clang-19': clang19(path.join(dir, 'relaxed-clang19'), ['-mrelaxed-simd', '-DRELAXED']),
  };
}

function spawnOk(cmd, args, env = process.env) {
  const r = spawnSync(cmd, args, { cwd: ROOT, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${r.stderr}`);
}

export async function relaxedSimdSection() {
  const intro = 'Relaxed SIMD (issue 35): the engine\'s matmul kernel alone (packing b into panels, the 2 × 8 micro-kernel;'
    + ' tests/bench/relaxed_matmul.cpp) as a freestanding wasm module in headless Chromium, built three ways;';
  if (spawnSync('clang-19', ['--version'], { stdio: 'ignore' }).status !== 0) {
    return [`${intro} not measured here: clang-19 is not installed (apt-get install clang-19 lld-19).`];
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'relaxed-simd-'));
  const modules = relaxedModules(dir);
  const browser = await launchChromium();
  let rounds;
  try {
    const page = await browser.newPage();
    rounds = await page.evaluate(async ({ modules, shapes, timer, nRounds }) => {
      const medianMs = (0, eval)(timer);
      const instances = {};
      for (const [name, bytes] of Object.entries(modules)) {
        instances[name] = (await WebAssembly.instantiate(new Uint8Array(bytes))).instance.exports;
      }
      // per shape, the builds one after another (so a slow spell of the machine meets them all)
      const setUp = (e, [m, k, n]) => {
        const f64 = new Float64Array(e.memory.buffer);
        const a = Math.ceil(e.__heap_base.value / 64) * 64;
        const b = a + m * k * 8;
        const o = b + k * n * 8;
        for (let i = 0; i < m * k; i++) f64[a / 8 + i] = Math.sin(1 + 0.37 * i) / Math.sqrt(k);
        for (let i = 0; i < k * n; i++) f64[b / 8 + i] = Math.sin(2 + 1.91 * i) / Math.sqrt(n);
        // small products repeated within one timed call (~10⁶ multiply-adds), so that a slow
        // spell during the timer's calibration cannot leave single calls below the coarse clock
        const reps = Math.ceil(1e6 / (m * k * n));
        const run = () => {
          for (let r = 0; r < reps; r++) e.matmul(a, b, o, o + m * n * 8, m, k, n);
        };
        return { reps, run, result: () => Array.from(f64.subarray(o / 8, o / 8 + m * n)) };
      };
      const out = [];
      for (let r = 0; r < nRounds; r++) {
        const round = Object.fromEntries(Object.keys(instances).map((name) => [name, []]));
        shapes.forEach((shape, s) => {
          for (const [name, e] of Object.entries(instances)) {
            const { reps, run, result } = setUp(e, shape);
            round[name][s] = { ms: medianMs(run) / reps, result: r === 0 ? result() : null };
          }
        });
        out.push(round);
      }
      return out;
    }, { modules: Object.fromEntries(Object.entries(modules).map(([k, v]) => [k, Array.from(v)])), shapes: RELAXED_SHAPES, timer: TIMER_SOURCE, nRounds: RELAXED_ROUNDS });
  } finally {
    await browser.close();
  }
  const names = Object.keys(modules);
  const [product] = names;
  const least = (name, s) => Math.min(...rounds.map((round) => round[name][s].ms));
  const ratio = (name, s) => {
    const values = rounds.map((round) => round[product][s].ms / round[name][s].ms).sort((a, b) => a - b);
    return `${values[values.length >> 1].toFixed(2)}× (${values[0].toFixed(2)}–${values[values.length - 1].toFixed(2)})`;
  };
  // what a fused multiply-add changes: the largest |relaxed − SIMD128| / max(1, |SIMD128|)
  const differs = (name, s) => {
    const a = rounds[0][name][s].result;
    const b = rounds[0][product][s].result;
    const d = Math.max(...a.map((v, i) => Math.abs(v - b[i]) / Math.max(1, Math.abs(b[i]))));
    return d === 0 ? '0 (bit for bit)' : d.toExponential(1);
  };
  const lines = [`${intro} ms, the least of ${RELAXED_ROUNDS} rounds' medians; ratio: the product's build ÷ that build (above 1:`
    + ' faster than the product\'s), the median of the rounds\' own ratios (least–most); difference: the largest |x − product| / max(1, |product|)', ''];
  const header = ['m × k · k × n', 'where', ...names, ...names.slice(1).map((n) => `ratio: ${n}`), ...names.slice(1).map((n) => `difference: ${n}`)];
  lines.push(`| ${header.join(' | ')} |`, `|${header.map(() => ' --- ').join('|')}|`);
  RELAXED_SHAPES.forEach(([m, k, n, what], s) => {
    lines.push(`| ${[`${m} × ${k} · ${k} × ${n}`, what, ...names.map((name) => fmt(least(name, s))),
      ...names.slice(1).map((name) => ratio(name, s)), ...names.slice(1).map((name) => differs(name, s))].join(' | ')} |`);
  });
  return lines;
}
