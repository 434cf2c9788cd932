// Every visible string of the page, in Chinese and English.
// A value is either a template with {name} placeholders or, where English needs
// a plural, a function of the parameters.

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

export const LANGUAGES = ['zh', 'en'];

export const STRINGS = {
  docTitle: {
    zh: '自注意力逐步可视化',
    en: 'Self-attention, step by step',
  },
  appTitle: {
    zh: '自注意力，一步一步算',
    en: 'Self-attention, step by step',
  },
  tagline: {
    zh: '输入一句话和它的向量，缩放点积注意力的每一步都会随输入即时更新。',
    en: 'Type a sentence and its vectors: every step of scaled dot-product attention updates as you type.',
  },
  langButton: { zh: 'English', en: '中文' },
  langButtonLabel: { zh: '切换到英文界面', en: 'Switch the page to Chinese' },
  inputsTitle: { zh: '输入', en: 'Inputs' },
  sentenceLabel: { zh: '句子', en: 'Sentence' },
  sentenceHint: {
    zh: '不含空格的文本按字切分；含空格的文本按空格分词。',
    en: 'Text without spaces is split into characters; text with spaces into words.',
  },
  tokensLabel: { zh: '词元', en: 'Tokens' },
  tokenCount: {
    zh: '{n} 个词元',
    en: ({ n }) => plural(n, 'token', 'tokens'),
  },
  matrixHint: {
    zh: '每行对应矩阵的一行；数字用空格、逗号或 Tab 分隔。',
    en: 'One matrix row per line; separate numbers with spaces, commas or tabs.',
  },
  xLabel: { zh: 'X：每个词元一个向量', en: 'X: one vector per token' },
  wqLabel: { zh: 'W_Q：查询投影矩阵', en: 'W_Q: query projection' },
  wkLabel: { zh: 'W_K：键投影矩阵', en: 'W_K: key projection' },
  wvLabel: { zh: 'W_V：值投影矩阵', en: 'W_V: value projection' },
  xGutterLabel: { zh: '每行对应的词元', en: 'Token of each row' },
  restoreExample: { zh: '恢复教程示例（我爱你）', en: 'Restore the tutorial example (我爱你)' },
  loading: { zh: '正在加载注意力计算引擎…', en: 'Loading the attention engine…' },
  loadFailed: {
    zh: '注意力计算引擎加载失败（{detail}）。请刷新页面；如果仍然失败，可能是浏览器不支持 WebAssembly。',
    en: 'The attention engine could not be loaded ({detail}). Reload the page; if it still fails, this browser may not support WebAssembly.',
  },
  staleNote: {
    zh: '输入有误，下面显示的是上一次有效的结果。',
    en: 'Some input is invalid: showing the last valid result.',
  },
  stepsTitle: { zh: '计算步骤', en: 'The steps' },
  stepLabel: { zh: '第 {n} 步', en: 'Step {n}' },

  step1Title: { zh: '输入 X', en: 'Input X' },
  step1Formula: { zh: 'X：每个词元一行（n × d_model）', en: 'X: one row per token (n × d_model)' },
  step1Plain: {
    zh: '教室里的每个人（每个词元）都用一个向量来描述，一行就是一个人。',
    en: 'Everyone in the classroom (each token) is described by a vector: one row per person.',
  },
  step2Formula: { zh: 'Q = X · W_Q，K = X · W_K，V = X · W_V', en: 'Q = X · W_Q,  K = X · W_K,  V = X · W_V' },
  step2Title: { zh: '投影出 Q、K、V', en: 'Project into Q, K and V' },
  step2Plain: {
    zh: 'Q 是每个人心里想找的特征，K 是每个人身上贴的标签，V 是每个人实际能提供的信息。',
    en: 'Q is what each person is looking for, K is the label each person wears, V is what each person can tell.',
  },
  step3Title: { zh: '注意力分数', en: 'Scores' },
  step3Formula: { zh: 'Scores = Q · Kᵀ', en: 'Scores = Q · Kᵀ' },
  step3Plain: {
    zh: '每一行：我想找的特征（Q）和每个人的标签（K）有多匹配，给班上每个人打一个分。',
    en: 'Each row: how well what I look for (Q) matches each person’s label (K): one score per person in the room.',
  },
  step4Title: { zh: '缩放', en: 'Scale' },
  step4Formula: { zh: 'Scaled = Scores / √d_k', en: 'Scaled = Scores / √d_k' },
  step4Plain: {
    zh: '除以 √d_k，免得向量维度越大分数越大，让下一步的 softmax 不至于太极端。',
    en: 'Divide by √d_k so that longer vectors do not inflate the scores and make the next step too one-sided.',
  },
  step4Dk: { zh: 'd_k = {dk}（W_Q 的列数），√d_k ≈ {sqrt}', en: 'd_k = {dk} (columns of W_Q), √d_k ≈ {sqrt}' },
  step5Title: { zh: '注意力权重', en: 'Attention weights' },
  step5Formula: { zh: 'Weights = softmax(Scaled)，逐行计算', en: 'Weights = softmax(Scaled), row by row' },
  step5Plain: {
    zh: '把每一行分数变成加起来等于 1 的比例：我该听每个人多少。',
    en: 'Each row of scores becomes shares that add up to 1: how much I listen to each person.',
  },
  step6Title: { zh: '输出', en: 'Output' },
  step6Formula: { zh: 'Output = Weights · V', en: 'Output = Weights · V' },
  step6Plain: {
    zh: '每个词元的新向量，是按权重把所有人的信息（V）混合起来的结果，于是带上了整句话的上下文。',
    en: 'Each token’s new vector is everyone’s V mixed by those shares, so it now carries context from the whole sentence.',
  },

  projection: { zh: '{result} = X · {weights}', en: '{result} = X · {weights}' },
  rowSum: { zh: '行和', en: 'Row sum' },
  queryKeyCorner: { zh: '查询＼键', en: 'query \\ key' },
  heatLegend: { zh: '颜色表示权重，从 0 到 1', en: 'Colour shows the weight, from 0 to 1' },
  matrixCaption: { zh: '矩阵 {name}，{rows} × {cols}', en: 'Matrix {name}, {rows} × {cols}' },
  footerPrivacy: {
    zh: '全部计算都在你的浏览器里完成，输入的内容不会离开本页。',
    en: 'Everything is computed in your browser; nothing you type leaves this page.',
  },
  footerSource: {
    zh: '示例来自教程《在教室里找人：自注意力》中的“我爱你”二维向量例子。',
    en: 'The example is the “我爱你” (“I love you”) sentence with 2-d vectors from the tutorial “finding a person in a classroom”.',
  },

  row: { zh: '第 {row} 行', en: 'Row {row}' },
  rowWithToken: { zh: '第 {row} 行（{token}）', en: 'Row {row} ({token})' },
  errSentenceEmpty: {
    zh: '请至少输入一个字：句子里还没有词元。',
    en: 'Type at least one character: the sentence has no tokens yet.',
  },
  errMatrixEmpty: { zh: '请至少输入一行数字。', en: 'Enter at least one row of numbers.' },
  errEmptyRow: {
    zh: '{where}是空的：请删掉这一空行，或者填上数字。',
    en: '{where} is empty: delete the blank line or type its numbers.',
  },
  errEmptyCell: {
    zh: '{where}第 {col} 列是空的：两个逗号之间少了一个数。',
    en: '{where}, column {col} is empty: a number is missing between two commas.',
  },
  errNotNumber: {
    zh: '{where}第 {col} 列：“{text}”不是数字，请写成 0.5 或 -2 这样的形式。',
    en: '{where}, column {col}: “{text}” is not a number; write it like 0.5 or -2.',
  },
  errNotFinite: {
    zh: '{where}第 {col} 列：“{text}”不是有限的数，请输入普通数字。',
    en: '{where}, column {col}: “{text}” is not a finite number; enter an ordinary number.',
  },
  errRagged: {
    zh: '{where}有 {count} 个数，但第 1 行有 {expected} 个：每一行的数字个数必须相同。',
    en: ({ where, count, expected }) =>
      `${where} has ${plural(count, 'number', 'numbers')}, but row 1 has ${expected}: every row needs the same number of columns.`,
  },
  errXRows: {
    zh: 'X 有 {rows} 行，但句子有 {tokens} 个词元：X 需要每个词元正好一行。',
    en: ({ rows, tokens }) =>
      `X has ${plural(rows, 'row', 'rows')} but the sentence has ${plural(tokens, 'token', 'tokens')}: X needs exactly one row per token.`,
  },
  errWqRows: {
    zh: 'W_Q 有 {rows} 行，应该是 {expected} 行：行数要等于 X 的列数（d_model = {expected}）。',
    en: ({ rows, expected }) =>
      `W_Q has ${plural(rows, 'row', 'rows')}; it needs ${expected}, one per column of X (d_model = ${expected}).`,
  },
  errWkShape: {
    zh: 'W_K 的形状是 {rows} × {cols}，必须和 W_Q 相同（{expRows} × {expCols}），这样 Q 和 K 才能逐行比较。',
    en: 'W_K is {rows} × {cols}; it must have the same shape as W_Q ({expRows} × {expCols}) so that Q and K can be compared.',
  },
  errWvRows: {
    zh: 'W_V 有 {rows} 行，应该是 {expected} 行：行数要等于 X 的列数（d_model = {expected}）。',
    en: ({ rows, expected }) =>
      `W_V has ${plural(rows, 'row', 'rows')}; it needs ${expected}, one per column of X (d_model = ${expected}).`,
  },
  errOverflow: {
    zh: '数值太大：{name} 超出了浮点数的范围。请换用小一些的数。',
    en: 'The numbers are too large: {name} overflowed the range of floating-point numbers. Use smaller values.',
  },
  errEngineNotMatrix: {
    zh: '{name} 不是矩阵：需要若干行数字。',
    en: '{name} is not a matrix: it needs rows of numbers.',
  },
  errEngineRagged: {
    zh: '{where}的数字个数和第 1 行不同：每一行的数字个数必须相同。',
    en: '{where} does not have as many numbers as row 1: every row needs the same number of columns.',
  },
  errEngineNotNumber: {
    zh: '{where}第 {col} 列不是数字。',
    en: '{where}, column {col} is not a number.',
  },
  errEngineNotFinite: {
    zh: '{where}第 {col} 列不是有限的数，请输入普通数字。',
    en: '{where}, column {col} is not a finite number; enter an ordinary number.',
  },
  errEngineShape: {
    zh: '{name} 的形状和其他矩阵对不上。',
    en: 'The shape of {name} does not fit the other matrices.',
  },
  errEngine: {
    zh: '计算引擎拒绝了这组输入：{message}',
    en: 'The engine rejected this input: {message}',
  },
};

export function detectLanguage(navigatorLanguage) {
  return /^zh\b/i.test(navigatorLanguage || '') ? 'zh' : 'en';
}

export function htmlLang(lang) {
  return lang === 'zh' ? 'zh-CN' : 'en';
}

export function translate(lang, key, params = {}) {
  const entry = STRINGS[key];
  if (!entry) throw new Error(`Unknown string key: ${key}`);
  const value = entry[lang];
  if (typeof value === 'function') return value(params);
  return value.replace(/\{(\w+)\}/g, (match, name) => (name in params ? String(params[name]) : match));
}

// Turns a message descriptor {key, params} into text. A descriptor with a row
// (1-based) gets its "where" phrase built in the same language, naming the
// token when there is one.
export function describe(lang, message) {
  const params = { ...message.params };
  if (params.row !== undefined) {
    params.where = params.token !== undefined
      ? translate(lang, 'rowWithToken', params)
      : translate(lang, 'row', params);
  }
  return translate(lang, message.key, params);
}
