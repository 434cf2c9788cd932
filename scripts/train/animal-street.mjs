// The recipe of web/models/animal-street.json (scripts/train-models.mjs animal-street).
import { initAttentionOnly, mulberry32, randomInt } from '../../web/src/state/induction.js';
import { SCRIPT, LOSS_EVERY, parametersOf, meanLoss, bigramLoss, train, percent, subsample, writeModel, pick } from './common.mjs';

// ---- (2) "it": the animal and the street -------------------------------------------------------

export const ANIMAL = {
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

export function trainAnimal(engine, { steps } = {}) {
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

export function buildAnimal(engine) {
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
