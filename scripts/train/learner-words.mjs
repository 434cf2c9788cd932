// The recipe of web/models/learner-words.json (scripts/train-models.mjs learner-words).
import { ROLE_MIN, initAttentionOnly, mulberry32 } from '../../web/src/state/induction.js';
import { SCRIPT, LOSS_EVERY, parametersOf, meanLoss, bigramLoss, train, percent, subsample, writeModel, pick } from './common.mjs';

// ---- (1) a learner's words: English and Chinese --------------------------------------------------

export const LEARNER = {
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

export function trainLearner(engine, { steps } = {}) {
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

export function buildLearner(engine) {
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
