// The engine's section: full attention at n tokens and d = d_model = d_k = d_v, natively, as
// wasm in node and in Chromium, through the JS API, in plain JS and in numpy (bench.mjs's table 1).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { OPENBLAS_DIR } from '../bootstrap.mjs';
import { ROOT, cmakeBuild } from '../build.mjs';
import { attentionReference } from '../../tests/bench/reference.mjs';
import { launchChromium, INPUTS_SOURCE, TIMER_SOURCE, makeInputs, medianMs, jsonLines, byN, fmt } from './common.mjs';

const REFERENCE_BLAS_DIR = '/usr/lib/x86_64-linux-gnu/blas';

// keepPages: glibc's malloc told to keep freed memory (mmap threshold at its 32 MiB maximum, no
// trimming), so numpy's temporaries reuse pages instead of faulting in fresh ones every call:
// numpy's own arithmetic without its allocator's cost, which on this machine is 2-6 ms at n = 512.
function numpy({ sizes, d }, blasDir, { keepPages = false } = {}) {
  if (!existsSync(blasDir)) return { label: null, times: {}, products: {} };
  const env = { ...process.env, LD_LIBRARY_PATH: blasDir, OPENBLAS_NUM_THREADS: '1' };
  if (keepPages) Object.assign(env, { MALLOC_MMAP_THRESHOLD_: String(32 << 20), MALLOC_TRIM_THRESHOLD_: String(2 ** 40) });
  // OPENBLAS_CORETYPE/L2_SIZE (set on some machines for old OpenBLAS builds) slow a current one
  delete env.OPENBLAS_CORETYPE;
  delete env.OPENBLAS_L2_SIZE;
  const lines = jsonLines('/usr/bin/python3', ['tests/bench/numpy_bench.py', d, ...sizes], env);
  return { label: lines[0].blas, times: byN(lines), products: byN(lines, 'products_ms') };
}

function plainJs({ sizes, d }) {
  const times = {};
  for (const n of sizes) {
    const flat = (m) => Float64Array.from(m.flat());
    const { x, wq, wk, wv } = makeInputs(n, d);
    const args = [flat(x), flat(wq), flat(wk), flat(wv), n, d, d, d];
    times[n] = medianMs(() => attentionReference(...args));
  }
  return times;
}

async function apiInNode({ sizes, d }) {
  const createAttentionEngine = createRequire(import.meta.url)(
    path.join(ROOT, 'dist/attention-engine.js'),
  );
  const engine = await createAttentionEngine();
  return Object.fromEntries(
    sizes.map((n) => {
      const inputs = makeInputs(n, d);
      return [n, medianMs(() => engine.compute(inputs))];
    }),
  );
}

async function inChromium({ sizes, d }, wasmDir) {
    const browser = await launchChromium();
  try {
    // the core C++ as wasm: the bench driver prints one JSON line per n to the console
    const page = await browser.newPage();
    const lines = [];
    const done = new Promise((resolve) => {
      page.on('console', (m) => {
        if (m.text().startsWith('{')) lines.push(JSON.parse(m.text()));
        if (lines.length === sizes.length) resolve();
      });
    });
    const html = path.join(wasmDir, 'bench.html');
    writeFileSync(
      html,
      `<!doctype html><script>var Module = { arguments: ${JSON.stringify([String(d), ...sizes.map(String)])},
        print: (t) => console.log(t) };</script><script src="attention_bench_web.js"></script>`,
    );
    await page.goto(pathToFileURL(html).href);
    await done;

    // the public API on the built engine script, in a blank page (the real page's CSP would
    // refuse the inline reference script below)
    const apiPage = await browser.newPage();
    await apiPage.addScriptTag({ path: path.join(ROOT, 'dist/attention-engine.js') });
    const api = await apiPage.evaluate(
      async ({ sizes, d, inputsSource, timerSource }) => {
        const makeInputs = (0, eval)(inputsSource);
        const medianMs = (0, eval)(timerSource);
        const engine = await globalThis.createAttentionEngine(); // runs in the page
        const out = {};
        for (const n of sizes) {
          const inputs = makeInputs(n, d);
          // dL/doutput for backward(): the output's shape, n × d
          const gradient = { output: makeInputs(n, d).x.map((row) => row.map((v) => -v)) };
          out[n] = {
            rows: medianMs(() => engine.compute(inputs)),
            typed: medianMs(() => engine.compute(inputs, { typed: true })),
            reuse: medianMs(() => engine.compute(inputs, { typed: true, reuse: true })),
            backward: medianMs(() => engine.backward(inputs, gradient, { typed: true })),
          };
        }
        // training at n = 16, d = 16: W_Q, W_K, W_V by Adam towards an output target; a step is a
        // forward pass, a backward pass and the update (and the loss); a call also reads and
        // writes the input and the state
        const small = makeInputs(16, 16);
        const options = { loss: 'output', target: makeInputs(16, 16).x, train: ['wq', 'wk', 'wv'], optimizer: 'adam', learningRate: 0.01 };
        out.train = {
          step: medianMs(() => engine.train(small, { ...options, steps: 100 })) / 100,
          call: medianMs(() => engine.train(small, { ...options, steps: 1 })),
        };
        return out;
      },
      { sizes, d, inputsSource: INPUTS_SOURCE, timerSource: TIMER_SOURCE },
    );
    // the plain-JS reference in the same browser: its module source, as a classic script
    const reference = readFileSync(path.join(ROOT, 'tests/bench/reference.mjs'), 'utf8');
    await apiPage.addScriptTag({ content: reference.replace(/^export /gm, '') });
    const js = await apiPage.evaluate(
      ({ sizes, d, inputsSource, timerSource }) => {
        const makeInputs = (0, eval)(inputsSource);
        const medianMs = (0, eval)(timerSource);
        const out = {};
        for (const n of sizes) {
          const flat = (m) => Float64Array.from(m.flat());
          const { x, wq, wk, wv } = makeInputs(n, d);
          const args = [flat(x), flat(wq), flat(wk), flat(wv), n, d, d, d];
          out[n] = medianMs(() => globalThis.attentionReference(...args));
        }
        return out;
      },
      { sizes, d, inputsSource: INPUTS_SOURCE, timerSource: TIMER_SOURCE },
    );
    return { core: byN(lines), products: byN(lines, 'products_ms'), api, js };
  } finally {
    await browser.close();
  }
}

// The section's lines, printed as they are measured; machine: the head line (report.mjs machine()).
export async function engineSection({ sizes, d, rounds: roundCount, machine }) {
  const nativeDir = cmakeBuild({ kind: 'native', targets: ['attention_bench'] });
  const wasmDir = cmakeBuild({ kind: 'wasm', targets: ['attention_bench', 'attention_bench_web'] });
  const sizeArgs = [String(d), ...sizes.map(String)];

  // One round of every measurement. A shared machine has slow spells lasting seconds to minutes,
  // which only ever add time: each time shown is the least of roundCount rounds' medians, and each
  // ratio the median of the rounds' own ratios.
  async function round() {
    return {
      native: byN(jsonLines(path.join(nativeDir, 'attention_bench'), sizeArgs)),
      wasmNode: byN(
        jsonLines(process.execPath, ['--no-experimental-fetch', path.join(wasmDir, 'attention_bench.js'), ...sizeArgs]),
      ),
      chrome: await inChromium({ sizes, d }, wasmDir),
      apiNode: await apiInNode({ sizes, d }),
      js: plainJs({ sizes, d }),
      npRef: numpy({ sizes, d }, REFERENCE_BLAS_DIR),
      npOpen: numpy({ sizes, d }, OPENBLAS_DIR),
      npKept: numpy({ sizes, d }, OPENBLAS_DIR, { keepPages: true }),
    };
  }

  // The least of two rounds' figures, field by field (labels kept).
  const least = (a, b) => (typeof a === 'number' ? Math.min(a, b)
    : a === null || typeof a !== 'object' ? a
      : Object.fromEntries(Object.keys(a).map((key) => [key, least(a[key], b[key])])));

  // the engine's section of docs/performance.md, printed as it is written
  const engineLines = [machine, ''];
  const say = (text) => {
    console.log(text);
    engineLines.push(...text.split('\n'));
  };
  say(`bench: d_model = d_k = d_v = ${d}; per full attention (all steps), in ms, the least of ${roundCount} rounds' medians;`
    + ' ratios: the median of the rounds\' own ratios (least–most)');
  const rounds = [];
  for (let r = 0; r < roundCount; r++) rounds.push(await round());
  const { native, wasmNode, chrome, apiNode, js, npRef, npOpen, npKept } = rounds.reduce(least);

  // Ratios within each round (its figures were measured minutes apart at most), then their
  // median across rounds, with the least and the most.
  const RATIOS = [
    (m, n) => m.chrome.api[n].typed / m.chrome.core[n], // API typed ÷ wasm (issue 17: ≤ 1.2× with reuse)
    (m, n) => m.chrome.api[n].reuse / m.chrome.core[n], // API typed, reuse ÷ wasm
    (m, n) => m.chrome.core[n] / m.native[n], // wasm ÷ native
    (m, n) => m.chrome.js[n] / m.chrome.core[n], // plain JS ÷ wasm
    (m, n) => m.chrome.core[n] / m.npOpen.times[n], // wasm ÷ numpy OpenBLAS
    (m, n) => m.chrome.core[n] / m.npKept.times[n], // wasm ÷ numpy OpenBLAS, pages kept
  ];
  function ratioSpread(of, n) {
    const values = rounds.map((m) => of(m, n)).filter(Number.isFinite).sort((a, b) => a - b);
    if (values.length === 0) return '–';
    const median = values[values.length >> 1];
    return `${median.toFixed(2)}× (${values[0].toFixed(2)}–${values[values.length - 1].toFixed(2)})`;
  }

  const header = [
    'n',
    'native -O3',
    'wasm node',
    'wasm Chromium',
    'API node',
    'API Chromium',
    'API typed Chromium',
    'API typed, reuse Chromium',
    'plain JS node',
    'plain JS Chromium',
    `numpy (${npRef.label ?? 'n/a'} BLAS)`,
    `numpy (${npOpen.label ?? 'n/a'}, 1 thread)`,
    `numpy (${npOpen.label ?? 'n/a'}, 1 thread, pages kept)`,
    'API typed ÷ wasm',
    'API typed, reuse ÷ wasm',
    'wasm ÷ native',
    'plain JS ÷ wasm',
    'wasm ÷ numpy OpenBLAS',
    'wasm ÷ numpy OpenBLAS, pages kept',
  ];
  const rows = sizes.map((n) => [
    n,
    fmt(native[n]),
    fmt(wasmNode[n]),
    fmt(chrome.core[n]),
    fmt(apiNode[n]),
    fmt(chrome.api[n].rows),
    fmt(chrome.api[n].typed),
    fmt(chrome.api[n].reuse),
    fmt(js[n]),
    fmt(chrome.js[n]),
    fmt(npRef.times[n]),
    fmt(npOpen.times[n]),
    fmt(npKept.times[n]),
    ...RATIOS.map((of) => ratioSpread(of, n)),
  ]);
  say('');
  say(`| ${header.join(' | ')} |`);
  say(`|${header.map(() => ' --- ').join('|')}|`);
  for (const r of rows) say(`| ${r.join(' | ')} |`);
  say(`\nbackward() and train() of the API in Chromium (typed form), the least of the rounds' medians, in ms;`
    + ' ratio: the median of the rounds\' own ratios (least–most)');
  const backwardHeader = ['n', 'compute typed', 'backward typed', 'backward ÷ compute'];
  say('');
  say(`| ${backwardHeader.join(' | ')} |`);
  say(`|${backwardHeader.map(() => ' --- ').join('|')}|`);
  for (const n of sizes) {
    const ratio = ratioSpread((m, size) => m.chrome.api[size].backward / m.chrome.api[size].typed, n);
    say(`| ${[n, fmt(chrome.api[n].typed), fmt(chrome.api[n].backward), ratio].join(' | ')} |`);
  }
  say(`training at n = 16, d = 16 (W_Q, W_K, W_V by Adam, output loss): ${fmt(chrome.api.train.step)} ms a step`
    + ` (in calls of 100 steps), ${fmt(chrome.api.train.call)} ms for a call of one step`);
  say(
    '\n"wasm" is the engine\'s C++ (tests/bench/attention_bench.cpp) compiled by Emscripten; "API" adds\n' +
      'the public compute() with its array-of-rows conversions and copies ("typed": compute(input,\n' +
      '{ typed: true }), as the page calls it). "pages kept": numpy with glibc\'s malloc keeping freed\n' +
      'memory, so its temporaries do not fault in fresh pages on every call. Ratios compare runs in\n' +
      'Chromium (the page\'s runtime) with native and numpy.',
  );

  // Where the time goes: wasm's products against OpenBLAS's, as time and as rate
  const madds = (n) => 3 * n * d * d + 2 * n * n * d; // X·W_Q, X·W_K, X·W_V; Q·Kᵀ, weights·V
  const rate = (n, ms) => (ms === undefined ? '' : ` (${(madds(n) / ms / 1e6).toFixed(1)} G/s)`);
  // the whole less the products, within each round (both measured seconds apart), then the
  // median of the rounds: the least picked the round whose products ran slowest, and could be
  // below zero when the rest is small (n = 64)
  const rest = (of) => {
    const values = rounds.map(of).filter(Number.isFinite).sort((a, b) => a - b);
    return values.length === 0 ? undefined : values[values.length >> 1];
  };
  const split = [
    'n',
    'multiply-adds',
    'products: wasm Chromium',
    'products: numpy OpenBLAS',
    'the rest: wasm Chromium',
    'the rest: numpy OpenBLAS',
  ];
  say(
    '\nWhere the time goes, in ms: the five matrix products alone (X·W_Q, X·W_K, X·W_V, Q·Kᵀ, weights·V)\n' +
      'with their rate in billions of multiply-adds a second, each the least of the rounds; and the rest\n' +
      '(scaling, softmax, checks): the whole computation less the products within a round, the median\n' +
      'of the rounds.',
  );
  say('');
  say(`| ${split.join(' | ')} |`);
  say(`|${split.map(() => ' --- ').join('|')}|`);
  for (const n of sizes) {
    const row = [
      n,
      `${(madds(n) / 1e6).toFixed(2)} M`,
      fmt(chrome.products[n]) + rate(n, chrome.products[n]),
      fmt(npOpen.products[n]) + rate(n, npOpen.products[n]),
      fmt(rest((m) => m.chrome.core[n] - m.chrome.products[n])),
      fmt(rest((m) => m.npOpen.times[n] - m.npOpen.products[n])),
    ];
    say(`| ${row.join(' | ')} |`);
  }
  return engineLines;
}
