// Every visible string (the page, the element, embedding, export and import,
// "How it learns"), in Chinese and English: one table, one API (translate a
// key, describe a message descriptor). A value is either a template with {name} placeholders or, where English needs
// a plural, a function of the parameters. The table is written by area: the page's
// chrome, options and editor here, the rest (the steps and diagram too) in strings-*.js beside this file.

import { plural } from './format.js';
import { INPUT_STRINGS } from './strings-input.js';
import { SHARE_STRINGS } from './strings-share.js';
import { LEARN_STRINGS } from './strings-learn.js';
import { MODEL_STRINGS } from './strings-models.js';
import { HINT_STRINGS } from './strings-hints.js';
import { STEP_STRINGS } from './strings-steps.js';
import { EXERCISE_STRINGS } from './strings-exercise.js';

export const LANGUAGES = ['zh', 'en'];

const MAIN_STRINGS = {
  docTitle: { zh: '自注意力逐步可视化', en: 'Self-attention, step by step' },
  appTitle: { zh: '自注意力，一步一步算', en: 'Self-attention, step by step' },
  tagline: {
    zh: '跟着一个例子的每一个数字走完缩放点积注意力；例子可以随意修改。',
    en: 'Follow every number of scaled dot-product attention on an example, and edit the example as you like.',
  },
  langButton: { zh: 'English', en: '中文' },
  langButtonLabel: { zh: '切换到英文界面', en: 'Switch the page to Chinese' },

  inputsTitle: { zh: '输入', en: 'Inputs' },
  exampleLabel: { zh: '例子', en: 'The example' },
  editToggle: { zh: '编辑例子', en: 'Edit the example' },
  moreTokens: { zh: '……共 {n} 个', en: ({ n }) => `… ${n} in all` },
  presetsLabel: { zh: '示例', en: 'Presets' },
  presetTutorial: { zh: '教程示例：我爱你', en: 'Tutorial: 我爱你' },
  presetEnglish: { zh: '英文对照：I love you', en: 'English: I love you' },
  presetAnimal: { zh: 'it 指的是谁', en: 'What “it” refers to' },
  presetPrevious: { zh: '看前一个词', en: 'The previous token' },
  presetSame: { zh: '看同一个词', en: 'The same word' },
  undo: { zh: '↶ 撤销', en: '↶ Undo' },
  redo: { zh: '↷ 重做', en: '↷ Redo' },
  undoTitle: { zh: '撤销上一次修改（Ctrl+Z / ⌘Z；在文本框里则撤销框内的输入）', en: 'Undo the last edit (Ctrl+Z / ⌘Z; inside a text box it undoes the typing there)' },
  redoTitle: { zh: '重做（Ctrl+Shift+Z / ⌘⇧Z 或 Ctrl+Y）', en: 'Redo (Ctrl+Shift+Z / ⌘⇧Z or Ctrl+Y)' },
  storageOff: {
    zh: '这个浏览器不允许本页保存数据：关闭页面后，你的修改只保存在地址栏的链接里。',
    en: 'This browser does not let the page store data: once the tab is closed, your work is kept only in the link in the address bar.',
  },
  storageFull: {
    zh: '这组输入太大，浏览器存不下：你的修改只保存在地址栏的链接里。',
    en: 'This input is too large for the browser’s storage: your work is kept only in the link in the address bar.',
  },
  // A state too large for a link (persist.js): the link cannot keep it either.
  storageOffNoLink: {
    zh: '这个浏览器不允许本页保存数据，这组输入也太大，放不进链接：关闭页面前，请用“导出与分享”里的“全部状态 JSON”下载保存。',
    en: 'This browser does not let the page store data, and this input is too large for a link: before closing the tab, download it (Export and share → Whole state as JSON) to keep it.',
  },
  storageFullNoLink: {
    zh: '这组输入太大，浏览器存不下，也放不进链接：请用“导出与分享”里的“全部状态 JSON”下载保存。',
    en: 'This input is too large for the browser’s storage and for a link: download it (Export and share → Whole state as JSON) to keep it.',
  },
  storageDamaged: {
    zh: '上次保存在这个浏览器里的内容无法读取：{detail}它已另存为“{key}”，没有删除。',
    en: 'What was saved in this browser could not be read: {detail} It has been set aside under “{key}”, not deleted.',
  },
  storageDamagedKept: {
    zh: '上次保存在这个浏览器里的内容无法读取：{detail}浏览器的存储已满（或另存的内容已太多），无法另存：它留在原处“{key}”，本页不会覆盖它，这期间你的修改只保存在地址栏的链接里。请现在下载一份。',
    en: 'What was saved in this browser could not be read: {detail} It could not be set aside (the browser’s storage is full, or holds too many set-aside states), so it stays where it was (“{key}”) and this page will not save over it; meanwhile your work is kept only in the link in the address bar. Download it now to keep a copy.',
  },
  storageDamagedDownload: { zh: '下载这份内容', en: 'Download it' },
  previousWork: {
    zh: '你之前的内容（“{text}”，{n} 个词元）在打开链接、文件或示例时被替换，已另存为“{key}”，没有删除。',
    en: ({ text, n, key }) => `Your previous work (“${text}”, ${n === 1 ? '1 token' : `${n} tokens`}) was replaced by a link, a file or a preset you opened; it has been set aside under “${key}”, not deleted.`,
  },
  previousWorkMore: {
    zh: '另有 {n} 份更早的内容也已另存；恢复或删除这一份后显示下一份。',
    en: ({ n }) => `${n === 1 ? '1 earlier work is' : `${n} earlier works are`} set aside too; restore or discard this one to see the next.`,
  },
  previousNotKept: {
    zh: '你之前的内容被替换了，但浏览器的存储已满（或另存的内容已太多），无法另存：“{key}”里保存的内容本页不会覆盖，这期间你的修改只保存在地址栏的链接里。删除一份不再需要的备份，它就会另存到那里，本页也会恢复保存；也可以恢复它，或现在下载一份。',
    en: 'Your previous work was replaced, and it could not be set aside (the browser’s storage is full, or holds too many set-aside states): this page will not save over what is stored under “{key}”; meanwhile your work is kept only in the link in the address bar. Discard a set-aside state you no longer need and it is set aside in its place, and saving resumes; or restore it, or download it now.',
  },
  previousRestore: { zh: '恢复之前的内容', en: 'Restore it' },
  previousDiscard: { zh: '删除这份备份', en: 'Discard it' },
  sentenceLabel: { zh: '句子', en: 'Sentence' },
  tokenModeLabel: { zh: '切分方式', en: 'Split into tokens' },
  modeChar: { zh: '按字（每个字一个词元）', en: 'By character' },
  modeSpace: { zh: '按空格', en: 'By spaces' },
  modeWord: { zh: '按词（Intl.Segmenter）', en: 'By words (Intl.Segmenter)' },
  splitPrompt: {
    zh: '这段文字有空格和拉丁字母，现在按字切分，得到 {chars} 个词元（每个字母一个）。要改成按空格切分（{words} 个词元）吗？',
    en: ({ chars, words }) => `This text has spaces and Latin letters, and it is split by character: ${plural(chars, 'token', 'tokens')}, one per letter. Split it by spaces instead (${plural(words, 'token', 'tokens')})?`,
  },
  splitBySpaces: { zh: '按空格切分', en: 'Split by spaces' },
  splitKeep: { zh: '保持按字切分', en: 'Keep by character' },
  tokensLabel: { zh: '词元（可直接修改）', en: 'Tokens (editable)' },
  tokenCount: { zh: '{n} 个词元', en: ({ n }) => plural(n, 'token', 'tokens') },
  tokensNotShown: {
    zh: '还有 {n} 个词元未逐个列出，请在句子里编辑。',
    en: ({ n }) => `${plural(n, 'more token is', 'more tokens are')} not listed one by one: edit them in the sentence.`,
  },
  tokenN: { zh: '第 {n} 个词元', en: 'Token {n}' },
  removeTokenN: { zh: '删除第 {n} 个词元', en: 'Remove token {n}' },
  newToken: { zh: '词{n}', en: 'w{n}' },
  addToken: { zh: '＋ 添加词元', en: '+ Add a token' },
  dimsTitle: { zh: '维度与显示', en: 'Sizes and display' },
  dModelLabel: { zh: 'd_model（向量长度）', en: 'd_model (vector length)' },
  dkLabel: { zh: 'd_k（Q、K 的长度）', en: 'd_k (length of Q, K)' },
  dvLabel: { zh: 'd_v（V 的长度）', en: 'd_v (length of V)' },
  decimalsLabel: { zh: '小数位数', en: 'Decimal places' },
  seedLabel: { zh: '随机种子', en: 'Random seed' },
  fillRandom: { zh: '随机填充', en: 'Fill randomly' },
  fillHint: {
    zh: '同一个种子总是得到同样的数（-1 到 1，两位小数）。',
    en: 'The same seed always gives the same numbers (−1 to 1, two decimals).',
  },
  matricesTitle: { zh: '向量和投影矩阵', en: 'Vectors and projections' },
  matricesHint: {
    zh: '直接在格子里改数字；也可以从表格软件复制一块粘贴进来，或用“以文本粘贴”输入 CSV、TSV 或 JSON。',
    en: 'Edit the numbers in the grids; paste a block copied from a spreadsheet into a cell, or use “Paste as text” for CSV, TSV or JSON.',
  },
  scrubHint: {
    zh: '按住格子里的数字左右拖动来改它（每像素 0.01，按住 Shift 为 0.001）；点一下再输入。键盘：Alt + ↑/↓ 加减 0.1（再加 Shift 为 0.01）。',
    en: 'Drag a number left or right to change it (0.01 per pixel, 0.001 with Shift); click it to type. Keyboard: Alt+↑/↓ adds or takes 0.1 (0.01 with Shift).',
  },
  xLabel: { zh: 'X：每个词元一个向量', en: 'X: one vector per token' },
  wqLabel: { zh: 'W_Q：查询投影', en: 'W_Q: query projection' },
  wkLabel: { zh: 'W_K：键投影', en: 'W_K: key projection' },
  wvLabel: { zh: 'W_V：值投影', en: 'W_V: value projection' },
  gridCaption: { zh: '{name} 的数值', en: 'Values of {name}' },
  gridTooLarge: {
    zh: '矩阵超过 {max} 行或 {max} 列，格子太多，请用下面的文本框编辑。',
    en: 'More than {max} rows or columns is too many cells for a grid: edit the matrix as text below.',
  },
  pasteSummary: { zh: '以文本粘贴或编辑（CSV、TSV、JSON）', en: 'Paste or edit as text (CSV, TSV, JSON)' },
  pasteLabel: { zh: '{name} 的文本', en: '{name} as text' },
  pasteHint: {
    zh: '每行一行矩阵，数字用 Tab、逗号或空格分隔；或 JSON，如 [[1, 0], [0, 1]]。列数决定对应的维度。',
    en: 'One matrix row per line, numbers separated by tabs, commas or spaces; or JSON such as [[1, 0], [0, 1]]. The number of columns sets the matching size.',
  },
  pasteApply: { zh: '应用', en: 'Apply' },

  loading: { zh: '正在加载注意力计算引擎…', en: 'Loading the attention engine…' },
  computing: { zh: '正在后台计算，页面仍可编辑…', en: 'Computing in the background; you can keep editing…' },
  loadFailed: {
    zh: '注意力计算引擎加载失败（{detail}）。',
    en: 'The attention engine could not be loaded ({detail}).',
  },
  staleNote: { zh: '输入有误，下面显示的是上一次有效的结果。', en: 'Some input is invalid: showing the last valid result.' },
  // {list, more}: quote.js quotedTokens()
  madeUpVectors: {
    zh: ({ list, more }) => `虚构的向量：${list}${more ? ` 等另外 ${more} 个词元` : ''}没有自己的向量，所以各按它的文字生成了一个（同一个词元总是同一个向量）。它们不含意义；给 X 填入你自己的向量，才能看到有意义的注意力。`,
    en: ({ list, more }) => `Made-up vectors: ${list}${more ? ` and ${more} more` : ''} had no vectors of their own, so each got one derived from its text (the same token, always the same vector). They carry no meaning; give X vectors of your own to see attention mean something.`,
  },

  stepsTitle: { zh: '计算步骤', en: 'The steps' },
  stepNavLabel: { zh: '步骤', en: 'Steps' },
  skipToSteps: { zh: '跳到计算步骤', en: 'Skip to the steps' },
  staleLabel: { zh: '显示的是上一次的结果', en: 'Showing the previous result' },
  stepOf: { zh: '第 {n} 步，共 {total} 步', en: 'Step {n} of {total}' },
  allSteps: { zh: '全部步骤', en: 'All steps' },
  prev: { zh: '← 上一步', en: '← Previous' },
  next: { zh: '下一步 →', en: 'Next →' },
  play: { zh: '▶ 自动播放', en: '▶ Play' },
  pause: { zh: '❚❚ 暂停', en: '❚❚ Pause' },
  overview: { zh: '显示全部步骤', en: 'Show all steps' },
  guided: { zh: '一步一步看', en: 'One step at a time' },
  keysHint: { zh: '键盘：← → 切换步骤。', en: 'Keyboard: ← → change step.' },

  labelX: { zh: '输入', en: 'input' },
  labelQ: { zh: '我想找的', en: 'what I look for' },
  labelK: { zh: '我的标签', en: 'my label' },
  labelV: { zh: '我能提供的', en: 'what I can tell' },
  queryKeyCorner: { zh: '查询＼键', en: 'query \\ key' },
  rowSum: { zh: '行和', en: 'Row sum' },
  matrixCaption: { zh: '矩阵 {name}，{rows} × {cols}', en: 'Matrix {name}, {rows} × {cols}' },
  canvasDescription: {
    zh: '矩阵 {name}（{rows} × {cols}）的热力图',
    en: 'Heatmap of matrix {name} ({rows} × {cols})',
  },
  canvasHint: {
    zh: '矩阵太大，以热力图显示。指向某一格可看数值；也可以用方向键。',
    en: 'Too large for a table: shown as a heatmap. Point at a cell for its value, or use the arrow keys.',
  },
  canvasBinned: {
    zh: '每个像素是 {rows}×{cols} 个格子的平均值；指向或用方向键可看单个格子。',
    en: 'Each pixel is the mean of {rows} × {cols} cells; point or use the arrow keys for a single cell.',
  },
  canvasHintInteractive: {
    zh: '矩阵太大，以热力图显示。指向某一格，或聚焦后用方向键，看它的算式。',
    en: 'Too large for a table: shown as a heatmap. Point at a cell, or focus it and use the arrow keys, to see its arithmetic.',
  },
  legendWeights: {
    zh: '颜色就是权重本身，从 0 到 1；每一行用同一把尺，不按各行自己的最大值',
    en: 'Colour is the weight itself, from 0 to 1, on one scale for every row (not relative to each row’s largest)',
  },
  // Under a step's matrices (steps.js): each key names the matrices it colours.
  legendSignedFor: {
    zh: '{names} 的颜色：蓝色为负，白色为 0，红色为正；每个矩阵按它自己的最大绝对值着色。',
    en: 'Colours of {names}: blue negative, white 0, red positive; each matrix is scaled to its own largest magnitude.',
  },
  legendWeightsFor: {
    zh: '{names} 的颜色就是权重本身，从 0 到 1；每一行用同一把尺，不按各行自己的最大值',
    en: 'The colour of {names} is the weight itself, from 0 to 1, on one scale for every row (not relative to each row’s largest)',
  },
  nearUniformHint: {
    zh: '分数彼此很接近，所以权重几乎是平均的：试试调低温度 T（比如 0.1），差别会被放大。',
    en: 'The scores are close together, so the weights are nearly even: try a lower temperature T (say 0.1) to pull them apart.',
  },
  // {list, more}: quote.js quotedTokens()
  evenRowsHint: {
    zh: ({ list, more }) => `${list}${more ? ` 等另外 ${more} 个词元` : ''}的权重完全平均：它的每个键得分都相同——它在 X 中的向量是零（查询 Q 的这一行全为 0），或者各个键的向量都一样。所以任何温度都改变不了这一行。请在 X 中给这些词元各自不同、不为零的向量。`,
    en: ({ list, more }) => `The weights of ${list}${more ? ` and ${more} more` : ''} are exactly even: every key gets the same score from it, because its vector in X is zero (its row of Q is all 0) or all the keys have the same vector. No temperature can change that. Give these tokens vectors of their own in X, different from each other and not zero.`,
  },
  scaleNote: { zh: 'd_k = {dk}（W_Q 的列数），√d_k ≈ {sqrt}', en: 'd_k = {dk} (columns of W_Q), √d_k ≈ {sqrt}' },

  workHint: {
    zh: '把鼠标移到 {names} 的任一格上、点一下，或用 Tab 和方向键聚焦，就能看到它是怎么算出来的。',
    en: 'Point at, tap or focus (Tab, then arrow keys) any cell of {names} to see how it is computed.',
  },
  workProjection: {
    zh: '{name} 中 {token} 这一行，逐项乘以 {weights} 的 {col} 列，再相加。',
    en: 'Row {token} of {name} times column {col} of {weights}, term by term, added up.',
  },
  workBiasTerm: {
    zh: '再加上偏置 {bias} 的第 {col} 个数 {value}（每一行都加同一个偏置）。',
    en: 'Then entry {col} of the bias {bias}, {value}, is added (the same bias on every row).',
  },
  workScores: {
    zh: '{query} 想找的（Q 的 {query} 行）和 {key} 的标签（K 的 {key} 行）的点积。',
    en: 'What {query} looks for (row {query} of Q) dotted with the label of {key} (row {key} of K).',
  },
  workScaled: { zh: '分数除以 √d_k，d_k = {dk}。', en: 'The score divided by √d_k, with d_k = {dk}.' },
  workMax: {
    zh: 'max = {max}：Scaled 中 {token} 这一行的最大值（在 {argmax} 列），先减去它，exp 不会溢出。',
    en: 'max = {max}: the largest value of row {token} of Scaled (at {argmax}), subtracted first so exp cannot overflow.',
  },
  workWeights: {
    zh: '{query} 分给 {key} 的注意力：这一行所有的权重加起来等于 1。',
    en: 'The share of attention {query} gives to {key}: the weights of the row add up to 1.',
  },
  workOutput: {
    zh: '{token} 这一行的权重，逐项乘以 V 的 {col} 列（每个人能提供的信息），再相加。',
    en: 'The weights of row {token} times column {col} of V (what each person can tell), added up.',
  },
  flowLegend: { zh: '描边的格子：一个数由哪些数算出。', en: 'Outlined cells: the numbers a cell is made from.' },
  flowRow: { zh: '{name} 第 {n} 行（{label}）', en: '{name} row {n} ({label})' },
  flowColumn: { zh: '{name} 第 {n} 列（{label}）', en: '{name} column {n} ({label})' },
  flowOne: { zh: '{a} → {target}', en: '{a} → {target}' },
  flowTwo: { zh: '{a} 和 {b} → {target}', en: '{a} and {b} → {target}' },
  flowThree: { zh: '{a}、{b} 和 {c} → {target}', en: '{a}, {b} and {c} → {target}' },
  flowLinked: { zh: '第 {n} 步：{text}', en: 'Step {n}: {text}' },

  linesTitle: { zh: '连线图', en: 'Lines view' },
  linesHint: {
    zh: '左边每个词元（查询）连向右边每个词元（键），线越粗越深，权重越大。指向或聚焦左边的词元只看它这一行。',
    en: 'Each token on the left (query) joins every token on the right (key); the stronger the line, the larger the weight. Point at or focus a token on the left to see its row alone.',
  },
  linesTooMany: {
    zh: '词元超过 {max} 个，连线太密，请看上面的热力图。',
    en: 'With more than {max} tokens the lines are too dense to read: use the heatmap above.',
  },
  linesQueries: { zh: '查询词元', en: 'Query tokens' },
  linesKeys: { zh: '键词元', en: 'Key tokens' },
  linesFocus: { zh: '只看 {token} 的注意力', en: 'Show where {token} attends' },
  linesReadout: { zh: '{token} 的注意力：{list}', en: '{token} attends: {list}' },

  misprintSummary: { zh: '教程这一步印出的八位小数有误：点开对照真实值', en: 'The tutorial misprints this step’s eight-digit values: compare with the true ones' },
  misprint_scaled: {
    zh: '教程“步骤3”印出的 Scaled[爱][爱] 是 0.20506082，但 0.29 / √2 = 0.20506097。划掉的是教程印的，下面是真实值（与教程自己的 numpy 代码一致）。',
    en: 'The tutorial’s “step 3” prints Scaled[爱][爱] as 0.20506082, but 0.29 / √2 = 0.20506097. Struck out: what it prints; below: the true value (what its own numpy code gives).',
  },
  misprint_weights: {
    zh: '教程“步骤4”印出的八位小数权重每一个都在第 4 位小数上出错（例如印 0.33614837，真实值 0.33569311）。划掉的是教程印的，下面是真实值，与教程自己的 numpy 代码一致。',
    en: 'Every weight in the tutorial’s “step 4” eight-digit block is off in the 4th decimal (it prints 0.33614837; the true value is 0.33569311). Struck out: what it prints; below: the true values, which its own numpy code gives.',
  },
  misprint_output: {
    zh: '教程“步骤5”印出的八位小数输出也是错的（印 0.55158713，真实值 0.55117850）；它的三位小数总结 [[0.551, 0.498], …] 倒是对的。',
    en: 'The tutorial’s “step 5” eight-digit output is wrong too (it prints 0.55158713; the true value is 0.55117850); its three-decimal summary [[0.551, 0.498], …] is right.',
  },
  misprintCaption: { zh: '{name}：教程印的 → 真实值', en: '{name}: printed → true' },

  variantTitle: { zh: '注意力的变体', en: 'Attention variant' },
  variantHint: {
    zh: '默认就是教程里的单头自注意力。打开下面的选项，看看 Transformer 里真正用到的各种变体。',
    en: 'By default this is the single-head self-attention of the tutorial. The options below are the variants transformers really use.',
  },
  headsLabel: { zh: '头数 h', en: 'Heads h' },
  useWoLabel: { zh: '用 W_O 投影输出', en: 'Project the output with W_O' },
  woForced: { zh: '多头时总是用 W_O', en: 'always used with several heads' },
  biasesLabel: { zh: '加上偏置 b_Q、b_K、b_V（和 b_O）', en: 'Add biases b_Q, b_K, b_V (and b_O)' },
  causalLabel: { zh: '因果掩码（只看自己和前面的词元）', en: 'Causal mask (look only at itself and earlier tokens)' },
  scaleLabel: { zh: '除以 √d_k', en: 'Divide by √d_k' },
  temperatureLabel: { zh: '温度 T', en: 'Temperature T' },
  temperatureHint: { zh: '大于 0；小于 1 更尖锐，大于 1 更平均。', en: 'Above 0; below 1 sharpens, above 1 flattens.' },
  temperatureSliderLabel: { zh: '温度 T 滑块（对数刻度，0.05 到 20）', en: 'Temperature T slider (log scale, 0.05 to 20)' },
  temperatureValueText: { zh: '温度 T = {n}', en: 'temperature T = {n}' },
  peLabel: { zh: '加上正弦位置编码', en: 'Add sinusoidal positional encoding' },
  alibiLabel: { zh: 'ALiBi 位置偏置（键离得越远，分数扣得越多）', en: 'ALiBi position bias (the farther a key, the lower its score)' },
  crossLabel: { zh: '交叉注意力：键和值来自第二个句子', en: 'Cross-attention: keys and values from a second sentence' },
  padHint: {
    zh: '填充：点词元上的“填充”按钮，把它标成填充；没有任何查询会注意填充的键。',
    en: 'Padding: press “pad” on a token to mark it as padding; no query attends to a padding key.',
  },
  padShort: { zh: '填充', en: 'pad' },
  padTitle: { zh: '标为填充（不接受注意力）', en: 'Mark as padding (receives no attention)' },
  padTokenN: { zh: '填充第 {n} 个词元', en: 'Pad token {n}' },
  contextTitle: { zh: '第二个句子（提供键和值）', en: 'Second sentence (gives the keys and values)' },
  contextSentenceLabel: { zh: '第二个句子', en: 'Second sentence' },
  contextHint: {
    zh: '比如翻译时的原文：查询来自上面的句子，键和值来自这一句。有空格就按空格切分，否则按字。',
    en: 'For example the source of a translation: queries come from the sentence above, keys and values from this one. Split at spaces if it has any, else by character.',
  },
  dCtxLabel: { zh: 'd_context（它的向量长度）', en: 'd_context (its vector length)' },
  cLabel: { zh: 'C：第二个句子每个词元一个向量', en: 'C: one vector per token of the second sentence' },
  woLabel: { zh: 'W_O：输出投影', en: 'W_O: output projection' },
  bqLabel: { zh: 'b_Q：加到 Q 每一行的偏置', en: 'b_Q: bias added to every row of Q' },
  bkLabel: { zh: 'b_K：加到 K 每一行的偏置', en: 'b_K: bias added to every row of K' },
  bvLabel: { zh: 'b_V：加到 V 每一行的偏置', en: 'b_V: bias added to every row of V' },
  boLabel: { zh: 'b_O：加到输出每一行的偏置', en: 'b_O: bias added to every row of the output' },
  editHeadLabel: { zh: '正在编辑的头', en: 'Editing the matrices of' },
  viewHeadLabel: { zh: '步骤里显示的头', en: 'Head shown in the steps' },
  headN: { zh: '头 {n}', en: 'head {n}' },
  openHead: { zh: '在步骤中打开头 {n}', en: 'Open head {n} in the steps' },
  headTileLabel: {
    zh: '头 {n} 的注意力权重：指向、轻点或用方向键看每一格的值',
    en: 'Head {n}’s attention weights: point, tap or use the arrow keys for each value',
  },
  headTileReadout: { zh: '{query} → {key}：{value}', en: '{query} → {key}: {value}' },
  headHasError: { zh: '头 {n}：', en: 'Head {n}: ' },
  defaultContext: { zh: 'I love you .', en: 'I love you .' },

  labelC: { zh: '第二个句子', en: 'second sentence' },
  labelPe: { zh: '位置编码', en: 'positions' },
  labelXPe: { zh: '加上位置', en: 'with positions' },
  labelConcat: { zh: '各头输出并排', en: 'heads side by side' },
  labelOutputWo: { zh: '最终输出', en: 'final output' },

  stepPeTitle: { zh: '加上位置编码', en: 'Add the positional encoding' },
  stepPeFormula: {
    zh: 'PE[pos, 2i] = sin(pos / 10000^(2i/d_model))，PE[pos, 2i+1] = cos(…)；X + PE',
    en: 'PE[pos, 2i] = sin(pos / 10000^(2i/d_model)),  PE[pos, 2i+1] = cos(…);  X + PE',
  },
  stepPePlain: {
    zh: '注意力本身不管顺序：把句子打乱，每个词得到的结果一样。所以给每个位置加一组正弦、余弦波的值，前面的列变化快，后面的列变化慢，每个位置都有自己的“指纹”。',
    en: 'Attention by itself ignores order: shuffle the sentence and each token gets the same result. So each position gets sine and cosine waves added, fast in the first columns and slow in the last, a fingerprint per position.',
  },
  peNote: {
    zh: '位置从 0 开始；d_model = {n}。X + PE 代替 X 进入下一步的投影。',
    en: 'Positions count from 0; d_model = {n}. X + PE replaces X in the projections of the next step.',
  },
  stepBiasTitle: { zh: 'ALiBi：按距离扣分', en: 'ALiBi: a penalty by distance' },
  stepBiasFormula: {
    zh: 'Bias[i, j] = −m·|i − j|，第 h 个头（共 H 个）m = 2^(−8h/H)',
    en: 'Bias[i, j] = −m·|i − j|,  m = 2^(−8h/H) for head h of H',
  },
  stepBiasPlain: {
    zh: 'ALiBi 不给向量加位置，而是直接给分数扣分：键离查询每远一个位置，就多扣 m。每个头的 m 不同，有的头只看附近，有的头看得远。',
    en: 'ALiBi adds no positions to the vectors: it lowers each score by how far the key is from the query, m for each position. Each head has its own m, so some heads look close by and others far.',
  },
  biasNote: {
    zh: '第 {n} 个头（共 {total} 个）：m = 2^(−8·{n}/{total}) = {m}。位置从 0 开始。这个矩阵加到下一步的分数上。',
    en: 'Head {n} of {total}: m = 2^(−8·{n}/{total}) = {m}. Positions count from 0. This matrix is added to the scores in the next step.',
  },
  biasNoteCross: {
    zh: '第 {n} 个头（共 {total} 个）：m = 2^(−8·{n}/{total}) = {m}。两个句子各自从位置 0 数起。这个矩阵加到下一步的分数上。',
    en: 'Head {n} of {total}: m = 2^(−8·{n}/{total}) = {m}. Each sentence counts its positions from 0. This matrix is added to the scores in the next step.',
  },
  stepHeadsTitle: { zh: '所有头的注意力权重', en: 'Every head’s attention weights' },
  stepHeadsFormula: { zh: 'head_i = softmax(Q_i K_iᵀ / √d_k) V_i，i = 1 … h', en: 'head_i = softmax(Q_i K_iᵀ / √d_k) V_i,  i = 1 … h' },
  stepHeadsPlain: {
    zh: '每个头有自己的 W_Q、W_K、W_V，所以会关注不同的东西。指向或轻点一格看它的权重；按“在步骤中打开”就按这个头重走一遍各个步骤。',
    en: 'Each head has its own W_Q, W_K and W_V, so each looks for something different. Point at or tap a cell for its weight; “Open … in the steps” walks the steps for that head.',
  },
  stepConcatTitle: { zh: '把各头的输出拼起来', en: 'Concatenate the heads’ outputs' },
  stepConcatFormula: { zh: 'Concat = [head_1 | head_2 | … | head_h]，n × h·d_v', en: 'Concat = [head_1 | head_2 | … | head_h],  n × h·d_v' },
  stepConcatPlain: {
    zh: '每个词元把各个头听来的信息并排放在一行里。',
    en: 'Each token puts what it heard from every head side by side in one row.',
  },
  stepWoTitle: { zh: '用 W_O 投影回 d_model', en: 'Project back to d_model with W_O' },
  stepWoFormula: { zh: 'Output = Concat·W_O，W_O：(h·d_v) × d_model', en: 'Output = Concat·W_O,  W_O: (h·d_v) × d_model' },
  stepWoPlain: {
    zh: 'W_O 把各头的信息混合起来，并变回和输入一样的长度 d_model，这样才能加回 X、交给下一层。',
    en: 'W_O mixes the heads’ information and brings it back to the input’s length d_model, so it can be added to X and passed to the next layer.',
  },

  maskFormula: { zh: '；被掩码的位置为 −∞', en: ';  masked entries −∞' },
  unscaledNote: {
    zh: '没有除以 √d_k（d_k = {dk}）：d_k 越大，分数越大，softmax 越容易只剩一个权重接近 1。',
    en: 'Not divided by √d_k (d_k = {dk}): the larger d_k, the larger the scores, and the more the softmax saturates with one weight near 1.',
  },
  temperatureSharper: { zh: '温度 T = {n} < 1：分数被放大，权重更集中。', en: 'Temperature T = {n} < 1: the scores grow, the weights get sharper.' },
  temperatureFlatter: { zh: '温度 T = {n} > 1：分数被缩小，权重更平均。', en: 'Temperature T = {n} > 1: the scores shrink, the weights get flatter.' },
  temperatureSharperNow: {
    zh: '温度 T = {n} < 1：分数被放大，权重更集中——每行最大的权重平均是 {now}，T = 1 时是 {base}。',
    en: 'Temperature T = {n} < 1: the scores grow, the weights get sharper — a row’s largest weight is {now} on average, against {base} at T = 1.',
  },
  temperatureFlatterNow: {
    zh: '温度 T = {n} > 1：分数被缩小，权重更平均——每行最大的权重平均是 {now}，T = 1 时是 {base}。',
    en: 'Temperature T = {n} > 1: the scores shrink, the weights get flatter — a row’s largest weight is {now} on average, against {base} at T = 1.',
  },
  maskNoteScaled: {
    zh: '斜线格是被掩码的位置：分数换成 −∞，因为 exp(−∞) = 0，softmax 后正好是 0。',
    en: 'Hatched cells are masked: their score becomes −∞, because exp(−∞) = 0 makes the weight exactly 0 after the softmax.',
  },
  maskNoteWeights: {
    zh: '斜线格是被掩码的位置，权重正好是 0；每行其余的权重加起来仍是 1。',
    en: 'Hatched cells are masked and weigh exactly 0; the other weights of each row still add up to 1.',
  },
  fullyMaskedNote: {
    zh: '注意：{list} 这一行的所有键都被掩码了，它什么都看不到。本工具把它的权重和输出都定为 0（PyTorch 会得到 NaN）。',
    en: ({ list, n }) => `Note: every key is masked for ${list}, so ${n === 1 ? 'this query sees' : 'these queries see'} nothing. Here ${n === 1 ? 'its' : 'their'} weights and output are 0 (PyTorch gives NaN).`,
  },

  compareTitle: { zh: '改动前后的权重对比', en: 'Weights before and after the change' },
  compareClose: { zh: '关闭对比', en: 'Close the comparison' },
  compareHint: {
    zh: '改变缩放、温度或掩码时自动出现。差值 = 之后 − 之前：红色变大，蓝色变小。',
    en: 'Appears when you change the scaling, the temperature or a mask. Difference = after − before: red grew, blue shrank.',
  },
  compareLabel_Before: { zh: '之前', en: 'before' },
  compareLabel_After: { zh: '之后', en: 'after' },
  compareLabel_Difference: { zh: '之后 − 之前', en: 'after − before' },
  changeTemperature: { zh: '温度：{from} → {to}', en: 'temperature: {from} → {to}' },
  changePadding: { zh: '填充：{from} → {to}', en: 'padding: {from} → {to}' },
  change_scale: { zh: '除以 √d_k：{from} → {to}', en: 'divide by √d_k: {from} → {to}' },
  change_causal: { zh: '因果掩码：{from} → {to}', en: 'causal mask: {from} → {to}' },
  change_alibi: { zh: 'ALiBi 偏置：{from} → {to}', en: 'ALiBi bias: {from} → {to}' },
  on: { zh: '开', en: 'on' },
  off: { zh: '关', en: 'off' },
  none: { zh: '无', en: 'none' },

  workScaledBias: { zh: '再加上 ALiBi 偏置 Bias[{query}, {key}] = {b}（上一步）。', en: 'Plus the ALiBi bias Bias[{query}, {key}] = {b} (the step before).' },
  workBias: {
    zh: '查询在位置 {i}，键在位置 {j}（从 0 数起）：相距 {d}，每隔一个位置扣 m = {m}。',
    en: 'The query is at position {i}, the key at {j} (counting from 0): {d} apart, m = {m} off for each position between.',
  },
  workScaledTemperature: { zh: '分数除以 √d_k（d_k = {dk}），再除以温度 T = {n}。', en: 'The score divided by √d_k (d_k = {dk}), then by the temperature T = {n}.' },
  workUnscaled: { zh: '没有缩放：分数原样进入 softmax（温度 T = {n}）。', en: 'No scaling: the score goes into the softmax as it is (temperature T = {n}).' },
  workUnscaledTemperature: { zh: '不除以 √d_k，只除以温度 T = {n}。', en: 'Not divided by √d_k, only by the temperature T = {n}.' },
  workMask_causal: {
    zh: '{key} 在 {query} 之后：因果掩码只让一个词元看它自己和前面的词元。',
    en: '{key} comes after {query}: a causal mask lets a token look only at itself and earlier tokens.',
  },
  workMask_padding: { zh: '{key} 被标成了填充：没有查询会注意它。', en: '{key} is marked as padding: no query attends to it.' },
  workMask_both: {
    zh: '{key} 在 {query} 之后，而且被标成了填充。',
    en: '{key} comes after {query}, and it is marked as padding.',
  },
  workMinusInfinity: {
    zh: '为什么是 −∞ 而不是一个很小的数：exp(−∞) = 0，下一步 softmax 之后它的权重正好是 0，别的权重照样加起来等于 1。',
    en: 'Why −∞ and not just a small number: exp(−∞) = 0, so after the softmax its weight is exactly 0 and the other weights still add up to 1.',
  },
  workWeightMasked: {
    zh: '被掩码的分数是 −∞，exp(−∞) = 0：{query} 分给 {key} 的注意力正好是 0。',
    en: 'A masked score is −∞ and exp(−∞) = 0: {query} gives exactly 0 attention to {key}.',
  },
  workFullyMasked: {
    zh: '{query} 的所有键都被掩码，softmax 没有可分配的对象：本工具把整行定为 0（PyTorch 得到 NaN）。',
    en: 'Every key of {query} is masked, so the softmax has nothing to share out: the whole row is set to 0 (PyTorch gives NaN).',
  },
  workWo: {
    zh: '{name} 中 {token} 这一行，逐项乘以 W_O 的 {col} 列，再相加：把各头的信息混合回 d_model 维。',
    en: 'Row {token} of {name} times column {col} of W_O, term by term, added up: the heads’ information mixed back into d_model.',
  },
  workConcat: { zh: '就是头 {n} 输出的 {col} 列，原样搬过来。', en: 'Simply column {col} of head {n}’s output, copied over.' },
  workPe: {
    zh: '位置 {row}（从 0 数），{col} 列：偶数列用 sin，奇数列用 cos，2i = {n}。越靠后的列，波长越长。',
    en: 'Position {row} (counting from 0), column {col}: even columns use sin, odd ones cos, with 2i = {n}. The later the column, the longer the wave.',
  },
  workAddPe: { zh: '{name} 的数加上同一格 {pe} 的数。', en: 'The number of {name} plus the same cell of {pe}.' },

  errTemperature: { zh: '温度要是大于 0 的有限数，比如 0.5 或 2。', en: 'The temperature must be a finite number above 0, such as 0.5 or 2.' },
  errTemperatureComma: { zh: '温度请用小数点书写：写 0.5，不写 0,5。', en: 'Write the temperature with a decimal point: 0.5, not 0,5.' },
  errHeads: { zh: '头数要是 1 到 {max} 之间的整数。', en: 'The number of heads must be a whole number from 1 to {max}.' },
  errCRows: {
    zh: 'C 有 {rows} 行，但第二个句子有 {tokens} 个词元：C 需要每个词元正好一行。',
    en: ({ rows, tokens }) =>
      `C has ${plural(rows, 'row', 'rows')} but the second sentence has ${plural(tokens, 'token', 'tokens')}: C needs exactly one row per token.`,
  },
  errWRowsContext: {
    zh: '{name} 有 {rows} 行，应该是 {expected} 行：行数要等于 C 的列数（d_context = {expected}）。',
    en: ({ name, rows, expected }) =>
      `${name} has ${plural(rows, 'row', 'rows')}; it needs ${expected}, one per column of C (d_context = ${expected}).`,
  },
  errBiasShape: {
    zh: '{name} 是 {rows} × {cols}，应该是一行 {expected} 个数。',
    en: '{name} is {rows} × {cols}; it must be one row of {expected} numbers.',
  },
  errWoShape: {
    zh: 'W_O 是 {rows} × {cols}，应该是 {expected} × {dModel}（h·d_v 行，d_model 列）。',
    en: 'W_O is {rows} × {cols}; it must be {expected} × {dModel} (h·d_v rows, d_model columns).',
  },

  footerPrivacy: {
    zh: '全部计算都在你的浏览器里完成，输入的内容不会离开本页。',
    en: 'Everything is computed in your browser; nothing you type leaves this page.',
  },
  footerSource: {
    zh: '示例来自教程《在教室里找人：自注意力》中的“我爱你”二维向量例子。',
    en: 'The example is the “我爱你” (“I love you”) sentence with 2-d vectors from the tutorial “finding a person in a classroom”.',
  },
  // The footer names the example on screen (main.js): a preset, a trained example, or the reader's own.
  footerPreset: { zh: '例子是示例“{name}”。', en: 'The example is the preset “{name}”.' },
  footerLearned: { zh: '例子是“注意力怎样学会”里训练好的示例“{name}”。', en: 'The example is the trained example “{name}” of “How it learns”.' },
  footerModel: {
    zh: '例子是模型 {name} 读的句子：“{text}”，{n} 个词元。',
    en: ({ name, text, n }) => `The example is a sentence read by the model ${name}: “${text}”, ${plural(n, 'token', 'tokens')}.`,
  },
  footerOwn: {
    zh: '例子是你自己的：“{text}”，{n} 个词元。',
    en: ({ text, n }) => `The example is your own: “${text}”, ${plural(n, 'token', 'tokens')}.`,
  },
};

// The one table: these strings and those of each area's file, a key declared once.
export const STRINGS = {};
for (const table of [MAIN_STRINGS, STEP_STRINGS, HINT_STRINGS, INPUT_STRINGS, SHARE_STRINGS, LEARN_STRINGS, EXERCISE_STRINGS, MODEL_STRINGS]) {
  for (const [key, entry] of Object.entries(table)) {
    if (key in STRINGS) throw new Error(`The string key ${key} is declared twice`);
    STRINGS[key] = entry;
  }
}

// The first of the browser's languages (navigator.languages, most preferred
// first, or one language tag) that the page speaks; English when none is.
export function detectLanguage(languages) {
  for (const tag of [].concat(languages ?? [])) {
    if (/^zh\b/i.test(tag)) return 'zh';
    if (/^en\b/i.test(tag)) return 'en';
  }
  return 'en';
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

// Turns a message descriptor {key, params} into text. A params value that is
// itself a descriptor is described first, in the same language (errState with
// its detail, and so on). A descriptor with a row (1-based) gets its "where"
// phrase built in the same language, naming the token when there is one.
export function describe(lang, message) {
  const params = {};
  for (const [name, value] of Object.entries(message.params || {})) {
    params[name] = value && typeof value === 'object' && 'key' in value ? describe(lang, value) : value;
  }
  if (params.row !== undefined) {
    params.where = params.token !== undefined
      ? translate(lang, 'rowWithToken', params)
      : translate(lang, 'row', params);
  }
  return translate(lang, message.key, params);
}

// Why the engine did not load ({code, message} from createAttentionEngine(), or 'missing'
// from the element), in words for the page's reader.
const LOAD_FAILURES = { csp: 'errLoadCsp', missing: 'errLoadMissing', no_wasm: 'errLoadNoWasm' };
export function describeLoadFailure(lang, { code, message }) {
  return LOAD_FAILURES[code] ? translate(lang, LOAD_FAILURES[code]) : translate(lang, 'errLoad', { detail: message });
}
