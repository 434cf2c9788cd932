// The induction model's recipe, one source for scripts/train-models.mjs (which trains and ships
// web/models/induction.json) and for "How it learns" (which trains it live, from scratch, in the
// engine's worker): the initial weights, the data generator, the held-out sequences and the head
// scores. Integer arithmetic and uniform draws from mulberry32 only (no Math.sin, no Math.log), so
// the script, node and every browser draw the same bits.
import { mulberry32 } from '../io/random.js';

export { mulberry32 };

export const randomInt = (rand, n) => Math.floor(rand() * n);

// rows × cols, uniform in [−scale, scale)
function uniform(rand, rows, cols, scale) {
  return Array.from({ length: rows }, () => Array.from({ length: cols }, () => (rand() * 2 - 1) * scale));
}

const norm = (d) => ({ gain: new Array(d).fill(1), bias: new Array(d).fill(0) });

// A pre-norm, attention-only transformer (no MLP), initialised from `rand`; 1/√fan-in scales.
// `tied`: the unembedding is the embedding's transpose (half the vocabulary's bytes).
export function initAttentionOnly(rand, { vocab, dModel, maxTokens, causal, layers, heads, dHead, tied = false }) {
  const model = {
    vocab,
    dModel,
    maxTokens,
    causal,
    embed: uniform(rand, vocab.length, dModel, 1),
    positions: uniform(rand, maxTokens, dModel, 1),
    layers: [],
  };
  const s = 1 / Math.sqrt(dModel);
  for (let l = 0; l < layers; l++) {
    model.layers.push({
      norm1: norm(dModel),
      heads: Array.from({ length: heads }, () => ({ wq: uniform(rand, dModel, dHead, s), wk: uniform(rand, dModel, dHead, s), wv: uniform(rand, dModel, dHead, s) })),
      wo: uniform(rand, heads * dHead, dModel, 1 / Math.sqrt(heads * dHead)),
    });
  }
  model.finalNorm = norm(dModel);
  model.unembed = tied ? 'tied' : uniform(rand, dModel, vocab.length, s); // 'tied': embedᵀ
  return model;
}

// 2 layers, attention only, causal; one sequence a step, Adam.
export const INDUCTION = {
  name: 'induction',
  seed: 3,
  vocabSize: 24,
  length: 24, // tokens a sequence
  copy: [8, 11], // the repeated stretch: 8 to 11 tokens, copied to a later random place
  shape: { dModel: 32, layers: 2, heads: 2, dHead: 16 },
  phases: [{ steps: 10000, learningRate: 2e-3 }],
  heldOut: 48,
};

// A head is an induction head (or a previous-token head) for a score ≥ this on held-out
// sequences (at random a causal head puts about 1/(i + 1) on any one key).
export const ROLE_MIN = 0.4;

export const inductionVocab = () => Array.from({ length: INDUCTION.vocabSize }, (_, i) => String.fromCharCode(65 + i)); // A … X

// The start of a run: the generator (seeded) and the initial model drawn from it; the training
// sequences are the draws that follow (inductionData(rand, …), any number at a time).
export function inductionStart() {
  const rand = mulberry32(INDUCTION.seed);
  const init = initAttentionOnly(rand, { vocab: inductionVocab(), maxTokens: INDUCTION.length, causal: true, ...INDUCTION.shape });
  return { rand, init };
}

// A sequence of random tokens in which a random stretch reappears later at a random place (so
// no fixed offset predicts it); `copies` marks the queries i whose token's earlier copy is at
// `copies[i]` (its only earlier occurrence), one per copied token but the last.
export function inductionData(rand, count) {
  const { vocabSize, length, copy } = INDUCTION;
  return Array.from({ length: count }, () => {
    const ids = Array.from({ length }, () => randomInt(rand, vocabSize));
    const k = copy[0] + randomInt(rand, copy[1] - copy[0] + 1);
    const from = randomInt(rand, length - 2 * k + 1);
    const to = from + k + randomInt(rand, length - from - 2 * k + 1);
    for (let t = 0; t < k; t++) ids[to + t] = ids[from + t];
    const copies = new Array(length).fill(-1);
    for (let t = 0; t < k - 1; t++) {
      const i = to + t;
      if (ids.slice(0, i).filter((x) => x === ids[i]).length === 1) copies[i] = from + t;
    }
    return { ids, targets: [...ids.slice(1), -1], copies };
  });
}

// Never trained on: from their own seed.
export function inductionHeldOut() {
  return inductionData(mulberry32(INDUCTION.seed + 1000), INDUCTION.heldOut);
}

// Per head, from runModel's results `runs` of `sequences` (runs[s].layers[l].attention.heads[h]
// .weights[i][j], rows or row views): the mean attention weight, over the copied queries, on the
// token after the query's earlier copy (prefix matching, Olsson et al. 2022: `induction`), and
// over every query i ≥ 1 on token i − 1 (`previous`). → [layer][head] { induction, previous }
export function inductionScoresOf(sequences, runs) {
  const heads = runs[0].layers.map((layer) => layer.attention.heads.map(() => ({ induction: 0, previous: 0 })));
  let inductionCount = 0;
  let previousCount = 0;
  sequences.forEach(({ ids, copies }, s) => {
    runs[s].layers.forEach((layer, l) =>
      layer.attention.heads.forEach((head, h) => {
        for (let i = 1; i < ids.length; i++) {
          heads[l][h].previous += head.weights[i][i - 1];
          if (copies[i] >= 0) heads[l][h].induction += head.weights[i][copies[i] + 1];
        }
      }),
    );
    previousCount += ids.length - 1;
    inductionCount += copies.filter((c) => c >= 0).length;
  });
  return heads.map((layer) => layer.map((s) => ({ induction: s.induction / inductionCount, previous: s.previous / previousCount })));
}

// inductionScoresOf with the engine's runModel (synchronous: node, the page's engine).
export function inductionScores(engine, model, sequences) {
  return inductionScoresOf(sequences, sequences.map(({ ids }) => engine.runModel(model, ids)));
}
