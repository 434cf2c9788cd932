// Trains the models the page ships with our own engine (engine.trainModel, float64, in node)
// from data this script generates, seeded, and writes web/models/<name>.json and
// web/models/index.json. Re-running it writes the same bytes: the data come from mulberry32, the
// initial weights are uniform draws from it (no transcendental functions), and the engine gives
// the same bits natively and in wasm (the time a run took is printed, not written).
// tests/js/models-trained.test.mjs reruns the first steps and re-measures every role the cards
// claim; scripts/build.mjs copies the files to dist/models/, checking their sha256.
//   node scripts/train-models.mjs            train every model, write the files
//   node scripts/train-models.mjs induction  only the named model(s)
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { INDUCTION, ROLE_MIN, inductionData, inductionHeldOut, inductionScores, inductionStart, initAttentionOnly, mulberry32, randomInt } from '../web/src/state/induction.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const MODELS_DIR = path.join(ROOT, 'web/models');
const SCRIPT = 'scripts/train-models.mjs';
const LOSS_EVERY = 50; // the training block keeps every 50th batch's loss (full precision)
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

function parametersOf(model) {
  const { embed, positions, layers, finalNorm, unembed } = model;
  return rounded({ embed, positions, layers, finalNorm, unembed });
}

// Mean cross-entropy (nats) over every target of `sequences`, by the engine's own loss.
function meanLoss(engine, model, sequences) {
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
function bigramLoss(train, sequences, vocabSize) {
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
function train(engine, model, batches, phases) {
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

// ---- (3) induction: 2 layers, attention only ------------------------------------------------
// The recipe (initial weights, data, held-out sequences, head scores) is web/src/state/induction.js,
// shared with the page's live training ("How it learns").

const percent = (x) => `${(100 * x).toFixed(1)}%`;

function trainInduction(engine, { steps } = {}) {
  const c = INDUCTION;
  const { rand, init } = inductionStart();
  const vocab = init.vocab;
  const total = c.phases.reduce((a, p) => a + p.steps, 0);
  const batches = inductionData(rand, total);
  const heldOut = inductionHeldOut();
  const phases = steps ? [{ steps, learningRate: c.phases[0].learningRate }] : c.phases;
  return { init, batches, heldOut, vocab, ...train(engine, init, batches, phases) };
}

function inductionCard(engine, trained) {
  const { model, losses, batches, heldOut } = trained;
  const shipped = { ...model, ...parametersOf(model) };
  const scores = inductionScores(engine, shipped, heldOut);
  const roles = [];
  scores.forEach((layer, l) =>
    layer.forEach((s, h) => {
      const figures = {
        en: `prefix matching ${percent(s.induction)}, previous token ${percent(s.previous)} (mean attention on ${heldOut.length} held-out sequences)`,
        zh: `前缀匹配 ${percent(s.induction)}，前一个词元 ${percent(s.previous)}（${heldOut.length} 条未参与训练的序列上的平均注意力）`,
      };
      if (s.induction >= ROLE_MIN) {
        roles.push({ layer: l, head: h, role: 'induction', measured: { score: 'prefix-matching', value: s.induction }, description: { en: `Induction head: attends to the token after the earlier copy of the current token; ${figures.en}.`, zh: `归纳头：关注当前词元上一次出现之后的那个词元；${figures.zh}。` } });
      } else if (s.previous >= ROLE_MIN) {
        roles.push({ layer: l, head: h, role: 'previous-token', measured: { score: 'previous-token', value: s.previous }, description: { en: `Previous-token head: attends to the token just before; ${figures.en}.`, zh: `前一词元头：关注紧挨着的前一个词元；${figures.zh}。` } });
      }
    }),
  );
  const heldOutLoss = meanLoss(engine, shipped, heldOut);
  const copied = heldOut.map(({ ids, targets, copies }) => ({ ids, targets: targets.map((t, i) => (copies[i] >= 0 ? t : -1)) }));
  const copiedLoss = meanLoss(engine, shipped, copied);
  const baselineLoss = bigramLoss(batches, heldOut, model.vocab.length);
  return { shipped, roles, scores, heldOutLoss, copiedLoss, baselineLoss, losses };
}

// ---- (2) "it": the animal and the street -------------------------------------------------------

const ANIMAL = {
  name: 'animal-street',
  seed: 2,
  // "the ANIMATE didn't VERB the PLACE because it was too ADJECTIVE": "it" is the animate noun
  // when the adjective fits it (tired), the place when the adjective fits a place (wide).
  animate: ['animal', 'dog', 'cat', 'horse', 'cow', 'fox', 'boy', 'girl', 'man', 'woman', 'child', 'bird'],
  place: ['street', 'road', 'river', 'bridge', 'field', 'lake', 'track', 'path', 'canal', 'square'],
  verbs: ['cross', 'enter', 'reach'],
  ofAnimate: ['tired', 'sleepy', 'scared', 'weak', 'lazy', 'slow', 'sick', 'old'],
  ofPlace: ['wide', 'long', 'busy', 'dark', 'wet', 'icy', 'steep', 'crowded'],
  heldOutPairs: 30, // (animate, place) pairs never in a training sentence; (animal, street) is one
  shape: { dModel: 32, layers: 2, heads: 4, dHead: 8 },
  phases: [{ steps: 4000, learningRate: 2e-3 }],
  flips: 48, // held-out (pair, tired-like, wide-like) combinations measured
};
// the(0) ANIMATE(1) didn't(2) VERB(3) the(4) PLACE(5) because(6) it(7) was(8) too(9) ADJECTIVE(10)
const IT = 7;
const ANIMATE_AT = 1;
const PLACE_AT = 5;
const ADJECTIVE_AT = 10;

export function animalVocab() {
  const a = ANIMAL;
  return ['the', "didn't", 'because', 'it', 'was', 'too', ...a.verbs, ...a.animate, ...a.place, ...a.ofAnimate, ...a.ofPlace];
}

// ids of the sentence and its targets: the referent's id at "it", −1 elsewhere
function animalSentence(vocab, animate, verb, place, adjective) {
  const words = ['the', animate, "didn't", verb, 'the', place, 'because', 'it', 'was', 'too', adjective];
  const ids = words.map((w) => vocab.indexOf(w));
  const referent = ANIMAL.ofAnimate.includes(adjective) ? animate : place;
  return { ids, targets: ids.map((_, i) => (i === IT ? vocab.indexOf(referent) : -1)), words };
}

// The (animate, place) pairs split in two: held out are (animal, street) and heldOutPairs − 1
// more drawn by `rand`; training sentences use only the others.
function animalSplit(rand) {
  const a = ANIMAL;
  const pairs = a.animate.flatMap((x) => a.place.map((y) => [x, y]));
  const held = new Set(['animal street']);
  while (held.size < a.heldOutPairs) {
    const [x, y] = pairs[randomInt(rand, pairs.length)];
    held.add(`${x} ${y}`);
  }
  return { train: pairs.filter(([x, y]) => !held.has(`${x} ${y}`)), heldOut: pairs.filter(([x, y]) => held.has(`${x} ${y}`)) };
}

function pick(rand, list) {
  return list[randomInt(rand, list.length)];
}

// Held-out flips: the classic sentence first, then `flips − 1` more drawn from held-out pairs,
// each a sentence with a tired-like and the same with a wide-like adjective.
function animalFlips(rand, vocab, heldOut) {
  const a = ANIMAL;
  const flips = [['animal', 'cross', 'street', 'tired', 'wide']];
  while (flips.length < a.flips) {
    const [x, y] = pick(rand, heldOut);
    flips.push([x, pick(rand, a.verbs), y, pick(rand, a.ofAnimate), pick(rand, a.ofPlace)]);
  }
  return flips.map(([x, v, y, tired, wide]) => [animalSentence(vocab, x, v, y, tired), animalSentence(vocab, x, v, y, wide)]);
}

// Per head: the fraction of held-out flips in which "it" puts more weight on the animate noun
// than on the place with the tired-like adjective and the reverse with
// the wide-like one, the mean weight "it" puts on the right noun and on the adjective; and the
// fraction of these sentences whose most probable token at "it" is the right noun.
export function animalScores(engine, model, flips) {
  const heads = model.layers.map((layer) => layer.heads.map(() => ({ flip: 0, onReferent: 0, onAdjective: 0 })));
  let predicted = 0;
  const itRows = (pair) =>
    pair.map(({ ids, targets }) => {
      const run = engine.runModel(model, ids);
      const p = run.probabilities[IT];
      if (p.indexOf(Math.max(...p)) === targets[IT]) predicted++;
      return run.layers.map((layer) => layer.attention.heads.map((head) => head.weights[IT]));
    });
  for (const pair of flips) {
    const [tired, wide] = itRows(pair);
    heads.forEach((layer, l) =>
      layer.forEach((s, h) => {
        const t = tired[l][h];
        const w = wide[l][h];
        if (t[ANIMATE_AT] > t[PLACE_AT] && w[PLACE_AT] > w[ANIMATE_AT]) s.flip++;
        s.onReferent += (t[ANIMATE_AT] + w[PLACE_AT]) / 2;
        s.onAdjective += (t[ADJECTIVE_AT] + w[ADJECTIVE_AT]) / 2;
      }),
    );
  }
  const n = flips.length;
  return {
    heads: heads.map((layer) => layer.map((s) => ({ flip: s.flip / n, onReferent: s.onReferent / n, onAdjective: s.onAdjective / n }))),
    predicted: predicted / (2 * n),
  };
}

// The held-out flips, drawn as trainAnimal() draws them.
export function animalHeldOut() {
  return animalFlips(mulberry32(ANIMAL.seed + 1000), animalVocab(), animalSplit(mulberry32(ANIMAL.seed)).heldOut);
}

function trainAnimal(engine, { steps } = {}) {
  const a = ANIMAL;
  const rand = mulberry32(a.seed);
  const vocab = animalVocab();
  const split = animalSplit(rand);
  const init = initAttentionOnly(rand, { vocab, maxTokens: 11, causal: false, ...a.shape });
  const total = a.phases.reduce((s, p) => s + p.steps, 0);
  const batches = Array.from({ length: total }, () => {
    const [x, y] = pick(rand, split.train);
    const adjective = rand() < 0.5 ? pick(rand, a.ofAnimate) : pick(rand, a.ofPlace);
    const { ids, targets } = animalSentence(vocab, x, pick(rand, a.verbs), y, adjective);
    return { ids, targets };
  });
  const flips = animalHeldOut();
  const phases = steps ? [{ steps, learningRate: a.phases[0].learningRate }] : a.phases;
  return { init, batches, flips, split, vocab, ...train(engine, init, batches, phases) };
}

// Roles of the "it" model: `coreference` for a head whose "it" row flips with the adjective on
// at least 75% of held-out flips and puts at least 0.4 on the right noun; `adjective` for one
// that puts at least 0.5 on the adjective.
function animalCard(engine, trained) {
  const { model, losses, batches, flips } = trained;
  const shipped = { ...model, ...parametersOf(model) };
  const scores = animalScores(engine, shipped, flips);
  const n = flips.length;
  const roles = [];
  scores.heads.forEach((layer, l) =>
    layer.forEach((s, h) => {
      const on = `${n} held-out sentence pairs (noun pairs never trained on, the classic one among them)`;
      const onZh = `${n} 组未参与训练的句对（名词组合从未训练过，包括经典句子）`;
      const weights = { en: `mean weight of "it" on the right noun ${percent(s.onReferent)}, on the adjective ${percent(s.onAdjective)}`, zh: `“it” 对正确名词的平均权重 ${percent(s.onReferent)}，对形容词 ${percent(s.onAdjective)}` };
      if (s.flip >= 0.75 && s.onReferent >= 0.4) {
        const en = `on ${on}, "it" looks more at the animal with a tired-like word and more at the place with a wide-like word in ${percent(s.flip)} of pairs; ${weights.en}`;
        const zh = `在${onZh}上，形容词像 tired 时 “it” 更多地看动物、像 wide 时更多地看地点的比例为 ${percent(s.flip)}；${weights.zh}`;
        roles.push({ layer: l, head: h, role: 'coreference', measured: { score: 'flip', value: s.flip }, description: { en: `"it" → what it refers to: ${en}.`, zh: `“it” → 它所指的词：${zh}。` } });
      } else if (s.onAdjective >= 0.5) {
        const en = `on ${on}, ${weights.en} (it flips between the nouns in ${percent(s.flip)} of pairs)`;
        const zh = `在${onZh}上，${weights.zh}（在名词之间翻转的比例为 ${percent(s.flip)}）`;
        roles.push({ layer: l, head: h, role: 'adjective', measured: { score: 'on-adjective', value: s.onAdjective }, description: { en: `"it" → the last word, the adjective, which decides the referent: ${en}.`, zh: `“it” → 句末决定所指的形容词：${zh}。` } });
      }
    }),
  );
  const heldOut = flips.flat();
  const heldOutLoss = meanLoss(engine, shipped, heldOut);
  const baselineLoss = bigramLoss(batches, heldOut, model.vocab.length);
  return { shipped, roles, scores, heldOutLoss, baselineLoss, losses };
}

function buildAnimal(engine) {
  const started = Date.now();
  const trained = trainAnimal(engine);
  const card = animalCard(engine, trained);
  console.log(`${ANIMAL.name}: trained and measured in ${(Date.now() - started) / 1000} s`);
  const a = ANIMAL;
  const steps = trained.losses.length;
  const n = trained.flips.length;
  const model = {
    name: a.name,
    tokenizer: { kind: 'words', lowercase: true, note: 'one token per word, punctuation dropped' },
    ...card.shipped,
    training: {
      script: SCRIPT,
      data: `${steps} generated sentences "the ANIMATE didn't VERB the PLACE because it was too ADJECTIVE" (${a.animate.length} animate nouns, ${a.place.length} places, ${a.verbs.length} verbs, ${a.ofAnimate.length} adjectives of the animate, ${a.ofPlace.length} of the place), from ${trained.split.train.length} of the ${trained.split.train.length + trained.split.heldOut.length} noun pairs; the target at "it" is the noun it refers to (mulberry32, seed ${a.seed}); held out: ${n} sentence pairs from the ${trained.split.heldOut.length} other noun pairs (seed ${a.seed + 1000}), "animal street" among them`,
      steps,
      seed: a.seed,
      optimizer: { name: 'adam', phases: a.phases, sequencesPerStep: 1 },
      lossEvery: LOSS_EVERY,
      losses: subsample(card.losses),
      heldOutLoss: card.heldOutLoss,
      baselineLoss: card.baselineLoss,
      baseline: 'add-one bigram counts of the training sentences, at "it" in the held-out sentences',
      heldOutPairs: trained.split.heldOut.map((p) => p.join(' ')),
      headScores: card.scores.heads,
      predicted: card.scores.predicted,
    },
  };
  const sha256 = writeModel(`${a.name}.json`, model);
  const best = card.scores.heads.flat().reduce((x, y) => (y.flip > x.flip ? y : x));
  return {
    name: a.name,
    file: `${a.name}.json`,
    sha256,
    title: { en: '"it": the animal or the street?', zh: '“it”：是动物还是街道？' },
    about: {
      en: `A 2-layer, ${a.shape.heads}-head attention-only transformer (no causal mask) trained with this engine for ${steps} steps to name what "it" refers to in generated sentences like "The animal didn't cross the street because it was too tired" (tired → the animal; wide → the street). Measured on ${n} sentence pairs whose noun pairs it never saw (the classic sentence among them): its most probable word at "it" is the right noun in ${percent(card.scores.predicted)} of the ${2 * n} sentences, and the best head's attention from "it" flips with the adjective in ${percent(best.flip)} of the pairs. Held-out loss at "it" ${card.heldOutLoss.toFixed(3)} nats against ${card.baselineLoss.toFixed(3)} for bigram counts.`,
      zh: `一个 2 层、每层 ${a.shape.heads} 个头、只有注意力（无因果掩码）的 Transformer，用本引擎训练了 ${steps} 步，在生成的句子（如 “The animal didn't cross the street because it was too tired”：tired → animal；wide → street）中说出 “it” 指什么。在 ${n} 组名词组合从未见过的句对上测量（包括经典句子）：${2 * n} 句中它在 “it” 处最可能的词是正确名词的比例为 ${percent(card.scores.predicted)}，最好的头从 “it” 出发的注意力随形容词翻转的比例为 ${percent(best.flip)}。在 “it” 处未参与训练的数据上损失为 ${card.heldOutLoss.toFixed(3)} nats，二元计数基线为 ${card.baselineLoss.toFixed(3)}。`,
    },
    roles: card.roles,
  };
}

// ---- (1) a learner's words: English and Chinese --------------------------------------------------

const LEARNER = {
  name: 'learner-words',
  seed: 1,
  maxTokens: 16,
  heldOutShare: 0.15, // of the sentence pairs, never in a training sequence (i love you = 我爱你 always trained)
  shape: { dModel: 32, layers: 2, heads: 4, dHead: 8, tied: true },
  phases: [
    { steps: 10000, learningRate: 2e-3 },
    { steps: 10000, learningRate: 1e-3 },
  ],
  heldOut: 48,
};

// Every sentence pair of a small grammar, English and its Chinese translation, as tokens with the
// concept each stands for (null: none, e.g. "the"): English one token per word, Chinese one per
// character, each ending in its full stop.
export function learnerPairs() {
  const pairs = [];
  const tokens = (words) => words.flatMap(([text, concept]) => (/^[a-z.]/.test(text) ? text.split(' ').map((t) => ({ t, c: t === 'the' ? null : concept })) : [...text].map((t) => ({ t, c: concept }))));
  const add = (en, zh) => pairs.push({ en: tokens([...en, ['.', 'stop']]), zh: tokens([...zh, ['。', 'stop']]) });
  // [English subject, its object form, verb ending, Chinese]
  const persons = [['i', 'me', '', '我'], ['you', 'you', '', '你'], ['we', 'us', '', '我们'], ['they', 'them', '', '他们'], ['he', 'him', 's', '他'], ['she', 'her', 's', '她']];
  const animals = [['the cat', '猫'], ['the dog', '狗']];
  const things = [...animals, ['the book', '书'], ['music', '音乐'], ['tea', '茶'], ['rice', '米饭'], ['apples', '苹果']];
  const food = things.slice(-3);
  const people = [...persons.filter(([s]) => s !== 'we').map(([, o, , zh]) => [o, zh]), ...animals];
  const verbs = [['love', '爱', people], ['see', '看', people], ['like', '喜欢', things], ['want', '想要', things], ['have', '有', things], ['eat', '吃', food]];
  for (const [s, own, ending, zhS] of persons) {
    for (const [verb, zhV, objects] of verbs) {
      const v = ending ? (verb === 'have' ? 'has' : `${verb}s`) : verb;
      for (const [o, zhO] of objects) if (o !== own) add([[s, s], [v, verb], [o, o]], [[zhS, s], [zhV, verb], [zhO, o]]);
    }
  }
  const nouns = [...animals, ['the book', '书'], ['the tea', '茶'], ['the weather', '天气']];
  for (const [n, zhN] of nouns) for (const [adj, zhA] of [['good', '好'], ['big', '大'], ['small', '小'], ['hot', '热'], ['cold', '冷']]) add([[n, n], ['is', 'is'], [adj, adj]], [[zhN, n], ['很', 'is'], [zhA, adj]]);
  return pairs;
}

export function learnerVocab() {
  const seen = new Set(['<s>']);
  for (const { en, zh } of learnerPairs()) for (const { t } of [...en, ...zh]) seen.add(t);
  return [...seen];
}

const text = (tokens) => tokens.map(({ t }) => t).join(' ');

// The pairs split: a share held out (never "i love you" / 我爱你), the rest for training.
function learnerSplit() {
  const rand = mulberry32(LEARNER.seed + 2000);
  const train = [];
  const heldOut = [];
  for (const p of learnerPairs()) (rand() < LEARNER.heldOutShare && text(p.en) !== 'i love you .' ? heldOut : train).push(p);
  return { train, heldOut };
}

// Sequences: <s>, a pair's English then its Chinese, or the Chinese then the English (half each);
// next-token targets. `aligned[q]`: for a query q whose next token is in the second sentence, the
// positions of the first sentence with that token's concept (the word it translates).
function learnerSequences(rand, pool, count) {
  const vocab = learnerVocab();
  return Array.from({ length: count }, () => {
    const pair = pick(rand, pool);
    const [first, second] = rand() < 0.5 ? [pair.en, pair.zh] : [pair.zh, pair.en];
    const all = [{ t: '<s>', c: null }, ...first, ...second];
    const ids = all.map(({ t }) => vocab.indexOf(t));
    const aligned = all.map((_, q) => {
      const next = all[q + 1];
      if (q + 1 <= first.length || !next || next.c === null) return [];
      return first.flatMap(({ c }, j) => (c === next.c ? [j + 1] : []));
    });
    return { ids, targets: [...ids.slice(1), -1], words: all.map(({ t }) => t), aligned };
  });
}

export function learnerHeldOut() {
  return learnerSequences(mulberry32(LEARNER.seed + 1000), learnerSplit().heldOut, LEARNER.heldOut);
}

// Per head, over every query i ≥ 1 of `sequences`: mean weight on token i − 1 (previous), on
// token 0, <s> (first), on itself (self), and, over queries whose token occurred before, on all
// its earlier copies (duplicate); over the queries of the second sentence, on the word of the
// first that the next token translates (translation).
export function patternScores(engine, model, sequences) {
  const heads = model.layers.map((layer) => layer.heads.map(() => ({ 'previous-token': 0, 'first-token': 0, self: 0, duplicate: 0, translation: 0 })));
  let queries = 0;
  let repeats = 0;
  let translated = 0;
  for (const { ids, aligned } of sequences) {
    const run = engine.runModel(model, ids);
    for (let i = 1; i < ids.length; i++) {
      const earlier = [];
      for (let j = 0; j < i; j++) if (ids[j] === ids[i]) earlier.push(j);
      run.layers.forEach((layer, l) =>
        layer.attention.heads.forEach(({ weights }, h) => {
          const s = heads[l][h];
          s['previous-token'] += weights[i][i - 1];
          s['first-token'] += weights[i][0];
          s.self += weights[i][i];
          for (const j of earlier) s.duplicate += weights[i][j];
          for (const j of aligned[i]) s.translation += weights[i][j];
        }),
      );
      queries++;
      if (earlier.length) repeats++;
      if (aligned[i].length) translated++;
    }
  }
  return heads.map((layer) =>
    layer.map((s) => ({ 'previous-token': s['previous-token'] / queries, 'first-token': s['first-token'] / queries, self: s.self / queries, duplicate: s.duplicate / repeats, translation: s.translation / translated })),
  );
}

function trainLearner(engine, { steps } = {}) {
  const c = LEARNER;
  const rand = mulberry32(c.seed);
  const vocab = learnerVocab();
  const init = initAttentionOnly(rand, { vocab, maxTokens: c.maxTokens, causal: true, ...c.shape });
  const total = c.phases.reduce((a, p) => a + p.steps, 0);
  const split = learnerSplit();
  const batches = learnerSequences(rand, split.train, total).map(({ ids, targets }) => ({ ids, targets }));
  const phases = steps ? [{ steps, learningRate: c.phases[0].learningRate }] : c.phases;
  return { init, batches, split, vocab, heldOut: learnerHeldOut(), ...train(engine, init, batches, phases) };
}

const PATTERN_TEXT = {
  'previous-token': { en: 'previous token', zh: '前一个词元' },
  'first-token': { en: 'first token <s>', zh: '首个词元 <s>' },
  self: { en: 'itself', zh: '自身' },
  duplicate: { en: 'earlier copies of its token', zh: '自身词元的更早副本' },
  translation: { en: 'the word in the other language that the next token translates', zh: '下一个词元在另一种语言中对应的词' },
};

function buildLearner(engine) {
  const started = Date.now();
  const trained = trainLearner(engine);
  const c = LEARNER;
  const shipped = { ...trained.model, ...parametersOf(trained.model) };
  const scores = patternScores(engine, shipped, trained.heldOut);
  const heldOutLoss = meanLoss(engine, shipped, trained.heldOut);
  const baselineLoss = bigramLoss(trained.batches, trained.heldOut, trained.vocab.length);
  console.log(`${c.name}: trained and measured in ${(Date.now() - started) / 1000} s`);
  const roles = [];
  scores.forEach((layer, l) =>
    layer.forEach((s, h) => {
      const [role, value] = Object.entries(s).reduce((a, b) => (b[1] > a[1] ? b : a));
      if (value < ROLE_MIN) return;
      const all = (lang) => Object.entries(s).map(([k, v]) => `${PATTERN_TEXT[k][lang]} ${percent(v)}`);
      roles.push({
        layer: l,
        head: h,
        role,
        measured: { score: role, value },
        description: {
          en: `Attends to ${PATTERN_TEXT[role].en}: ${percent(value)} of its attention on average over ${trained.heldOut.length} held-out sequences of sentence pairs never trained on (${all('en').join(', ')}).`,
          zh: `关注${PATTERN_TEXT[role].zh}：在 ${trained.heldOut.length} 条由未参与训练的句对组成的序列上平均占其注意力的 ${percent(value)}（${all('zh').join('，')}）。`,
        },
      });
    }),
  );
  const steps = trained.losses.length;
  const model = {
    name: c.name,
    tokenizer: { kind: 'words-and-han', lowercase: true, start: '<s>', note: 'English: one token per word, lowercased, "." its own token; Chinese: one token per character; each sequence starts with <s>' },
    ...shipped,
    training: {
      script: SCRIPT,
      data: `${steps} generated sequences: <s>, an English sentence of a small grammar (subject, verb, object; "the N is A") and its Chinese translation, or the Chinese first (half each; "i love you . 我爱你。" among them), drawn from ${trained.split.train.length} of the ${trained.split.train.length + trained.split.heldOut.length} sentence pairs (mulberry32, seed ${c.seed}); held out: ${c.heldOut} sequences of the other ${trained.split.heldOut.length} pairs (seed ${c.seed + 1000})`,
      steps,
      seed: c.seed,
      optimizer: { name: 'adam', phases: c.phases, sequencesPerStep: 1 },
      lossEvery: LOSS_EVERY,
      losses: subsample(trained.losses),
      heldOutLoss,
      baselineLoss,
      baseline: 'add-one bigram counts of the training sequences, on the held-out sequences',
      heldOutPairs: trained.split.heldOut.map(({ en, zh }) => `${text(en)} = ${text(zh)}`),
      headScores: scores,
    },
  };
  const sha256 = writeModel(`${c.name}.json`, model);
  const others = scores.flatMap((layer, l) => layer.map((sc, h) => ({ l, h, sc }))).filter(({ l, h }) => !roles.some((r) => r.layer === l && r.head === h));
  const listed = (lang) => others.map(({ l, h, sc }) => `${lang === 'en' ? `layer ${l} head ${h}` : `第 ${l} 层第 ${h} 个头`} (${Object.entries(sc).map(([k, v]) => `${PATTERN_TEXT[k][lang]} ${percent(v)}`).join(', ')})`);
  const unnamed = {
    en: others.length ? ` No role is claimed for ${listed('en').join('; ')}: no score reaches ${ROLE_MIN}.` : '',
    zh: others.length ? `${listed('zh').join('；')}：没有一项得分达到 ${ROLE_MIN}，不标注角色。` : '',
  };
  return {
    name: c.name,
    file: `${c.name}.json`,
    sha256,
    title: { en: "A learner's words, English and 中文", zh: '学习者常用词：英文与中文' },
    about: {
      en: `A 2-layer, 4-head attention-only transformer (causal, tied embeddings) trained with this engine for ${steps} steps to predict the next token of simple English sentences followed by their Chinese translation, or the other way round ("i love you . 我爱你。", "the cat is big . 猫很大。"): ${trained.vocab.length} tokens, English words and Chinese characters. Held-out loss ${heldOutLoss.toFixed(3)} nats per token on sentence pairs it never saw, against ${baselineLoss.toFixed(3)} for bigram counts. Words outside its ${trained.vocab.length} tokens are unknown to it.${unnamed.en}`,
      zh: `一个 2 层、每层 4 个头、只有注意力的 Transformer（因果掩码，嵌入与输出共享），用本引擎训练了 ${steps} 步，预测简单英文句子及其中文翻译（或先中文后英文）的下一个词元（“i love you . 我爱你。”、“the cat is big . 猫很大。”）：共 ${trained.vocab.length} 个词元，英文按词、中文按字。在从未见过的句对上损失为每词元 ${heldOutLoss.toFixed(3)} nats，二元计数基线为 ${baselineLoss.toFixed(3)}。这 ${trained.vocab.length} 个词元之外的词它都不认识。${unnamed.zh}`,
    },
    roles,
  };
}

// ---- writing ---------------------------------------------------------------------------------

function subsample(losses) {
  return losses.filter((_, i) => i % LOSS_EVERY === 0 || i === losses.length - 1);
}

function writeModel(file, model) {
  const text = `${JSON.stringify(model)}\n`;
  writeFileSync(path.join(MODELS_DIR, file), text);
  return createHash('sha256').update(text).digest('hex');
}

function buildInduction(engine) {
  const started = Date.now();
  const trained = trainInduction(engine);
  const card = inductionCard(engine, trained);
  console.log(`${INDUCTION.name}: trained and measured in ${(Date.now() - started) / 1000} s`);
  const c = INDUCTION;
  const steps = trained.losses.length;
  const model = {
    name: c.name,
    tokenizer: { kind: 'characters', note: 'one token per letter A–X' },
    ...card.shipped,
    training: {
      script: SCRIPT,
      data: `${steps} generated sequences of ${c.length} tokens drawn uniformly from ${c.vocabSize}, in each a random stretch of ${c.copy[0]}–${c.copy[1]} tokens copied to a later random place (mulberry32, seed ${c.seed}); held out: ${c.heldOut} more from seed ${c.seed + 1000}`,
      steps,
      seed: c.seed,
      optimizer: { name: 'adam', phases: c.phases, sequencesPerStep: 1 },
      lossEvery: LOSS_EVERY,
      losses: subsample(card.losses),
      heldOutLoss: card.heldOutLoss,
      heldOutLossCopied: card.copiedLoss,
      baselineLoss: card.baselineLoss,
      baseline: 'add-one bigram counts of the training sequences, on the held-out sequences',
      headScores: card.scores,
    },
  };
  const sha256 = writeModel(`${c.name}.json`, model);
  const others = card.scores.flatMap((layer, l) => layer.map((s, h) => ({ l, h, s }))).filter(({ l, h }) => !card.roles.some((r) => r.layer === l && r.head === h));
  const unnamed = {
    en: others.length ? ` No role is claimed for ${others.map(({ l, h, s }) => `layer ${l} head ${h} (prefix matching ${percent(s.induction)}, previous token ${percent(s.previous)})`).join(', ')}: neither score reaches ${ROLE_MIN}.` : '',
    zh: others.length ? `${others.map(({ l, h, s }) => `第 ${l} 层第 ${h} 个头（前缀匹配 ${percent(s.induction)}，前一个词元 ${percent(s.previous)}）`).join('、')}两项得分都不到 ${ROLE_MIN}，不标注角色。` : '',
  };
  const lossLine = {
    en: `held-out loss ${card.heldOutLoss.toFixed(3)} nats per token (on the copied tokens, which an earlier copy makes predictable: ${card.copiedLoss.toFixed(3)}) against ${card.baselineLoss.toFixed(3)} for bigram counts (ln ${c.vocabSize} = ${Math.log(c.vocabSize).toFixed(3)})`,
    zh: `未参与训练的数据上损失为每词元 ${card.heldOutLoss.toFixed(3)} nats（在可由前面的副本预测的复制词元上：${card.copiedLoss.toFixed(3)}），二元计数基线为 ${card.baselineLoss.toFixed(3)}（ln ${c.vocabSize} = ${Math.log(c.vocabSize).toFixed(3)}）`,
  };
  return {
    name: c.name,
    file: `${c.name}.json`,
    sha256,
    title: { en: 'Induction heads (2 layers, attention only)', zh: '归纳头（2 层，仅注意力）' },
    about: {
      en: `A 2-layer, 2-head attention-only transformer trained with this engine for ${steps} steps on random sequences of letters in which a stretch of 8–11 letters reappears later, at a random place. To predict a copied letter it must find where the current letter appeared before and copy the letter that followed it. ${lossLine.en[0].toUpperCase()}${lossLine.en.slice(1)}.${unnamed.en}`,
      zh: `一个 2 层、每层 2 个头、只有注意力的 Transformer，用本引擎在随机字母序列上训练了 ${steps} 步，每条序列中有一段 8–11 个字母在后面随机位置再次出现。要预测被复制的字母，它必须找到当前字母之前出现的位置，并抄下紧随其后的字母。${lossLine.zh}。${unnamed.zh}`,
    },
    roles: card.roles,
  };
}

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

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
