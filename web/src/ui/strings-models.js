// The strings of the shipped models on the page (engine/model-run.js, edit/model-picker.js, the
// state's `model` and `layer` options), in Chinese and English; part of i18n.js's one table.

export const MODEL_STRINGS = {
  modelLabel: { zh: '模型', en: 'Model' },
  layerLabel: { zh: '层', en: 'Layer' },
  modelTutorial: { zh: '教程的例子（手写的二维向量）', en: "The tutorial's example (hand-set 2-d vectors)" },
  modelPickerHint: {
    zh: '选一个本项目训练的模型：句子由它的分词器切分，每个词元取它学到的向量，逐步显示它某一层的某个头。',
    en: "Pick a model this project trained: the sentence is read by its tokenizer, each token gets its learned vector, and one head of one layer is shown step by step.",
  },
  modelShown: { zh: '模型：{title}，第 {layer} 层，第 {head} 个头', en: 'Model: {title}, layer {layer}, head {head}' },
  modelLoading: { zh: '正在加载模型 {name}……', en: 'Loading the model {name}…' },
  probModelName: { zh: '应为模型名（小写字母、数字和连字符），如 learner-words', en: 'must be a model name (lower-case letters, digits and dashes), e.g. learner-words' },
  modelInputFirst: {
    zh: 'X 是模型“{title}”第 {layer} 层的输入：每个词元学到的向量加上它位置的向量，再经过 LayerNorm（norm1）——各头读的正是它。',
    en: 'X is layer {layer}’s input in the model “{title}”: each token’s learned vector plus its position’s, after LayerNorm (norm1) — what the heads read.',
  },
  modelInputLater: {
    zh: 'X 是模型“{title}”第 {layer} 层的输入：第 {before} 层之后的残差流，再经过 LayerNorm（norm1）——各头读的正是它。',
    en: 'X is layer {layer}’s input in the model “{title}”: the residual stream after layer {before}, after LayerNorm (norm1) — what the heads read.',
  },
  modelUnknown: {
    zh: ({ list, more, instead }) => `模型不认识的词元：${list}${more ? ` 等另外 ${more} 个` : ''}。它们不在模型的词表里，各以“${instead}”的向量代替（不是零向量）；换成模型认识的词，才能看到它真正的注意力。`,
    en: ({ list, more, instead }) => `Not known to the model: ${list}${more ? ` and ${more} more` : ''}. They are not in its vocabulary, so each gets the vector of “${instead}” instead (not a zero); use words it knows to see its real attention.`,
  },
  modelCut: { zh: '这个模型最多读 {max} 个词元：{count} 个中只显示前 {max} 个。', en: 'This model reads at most {max} tokens: the first {max} of {count} are shown.' },
  modelLayerClamped: { zh: '没有第 {asked} 层：这个模型只有 {layers} 层，显示最后一层。', en: 'There is no layer {asked}: this model has {layers} layers; the last is shown.' },
  errModelUnknown: { zh: '没有名为“{name}”的模型；可用的模型：{list}。', en: 'There is no model named “{name}”; the models are {list}.' },
  errModelLoad: { zh: '模型 {name} 加载失败：{message}', en: 'The model {name} could not be loaded: {message}' },
  errModelNoTokens: { zh: '句子里没有模型能读的词元。', en: 'The sentence has no tokens the model can read.' },
  predictionsTitle: { zh: '模型在每个位置的预测', en: 'What the model predicts at each position' },
  predictionsHint: {
    zh: '每个位置上模型最可能的输出（前 5 个及其概率）：预测下一个词的模型给出它预计的下一个词元；“it”模型在 “it” 处给出它指代的名词。注意力就是为此：把别处的信息搬到这里。关掉一个头，看预测怎样变。',
    en: 'At each position, the model’s most likely outputs (the top 5, with their probabilities): a next-token model’s guess of the token that comes next; the “it” model’s, at “it”, the noun it refers to. This is what attention is for: it brings information from elsewhere to here. Switch a head off and watch the predictions change.',
  },
  predictionsAfter: { zh: '位置上的词元', en: 'At this token' },
  predictionsWith: { zh: '预测（所有头）', en: 'Predicted (every head)' },
  predictionsWithout: { zh: '关掉第 {layer} 层第 {head} 个头', en: 'Layer {layer} head {head} off' },
  headOff: { zh: '关掉这个头（第 {layer} 层第 {head} 个）', en: 'Switch this head off (layer {layer}, head {head})' },
  headOnAgain: { zh: '重新打开这个头（第 {layer} 层第 {head} 个）', en: 'Switch this head on again (layer {layer}, head {head})' },
};
