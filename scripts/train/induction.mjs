// The recipe of web/models/induction.json (scripts/train-models.mjs induction).
import { INDUCTION, ROLE_MIN, inductionData, inductionHeldOut, inductionScores, inductionStart } from '../../web/src/state/induction.js';
import { SCRIPT, LOSS_EVERY, parametersOf, meanLoss, bigramLoss, train, percent, subsample, writeModel } from './common.mjs';

// ---- (3) induction: 2 layers, attention only ------------------------------------------------
// The recipe (initial weights, data, held-out sequences, head scores) is web/src/state/induction.js,
// shared with the page's live training ("How it learns").

export function trainInduction(engine, { steps } = {}) {
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

export function buildInduction(engine) {
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
