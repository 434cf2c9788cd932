// The strings of embedding, sharing, export and import, in Chinese and
// English, in the structure of i18n.js; say() looks here first, then in
// i18n.js, so one call covers both.

import { STRINGS, translate, describe } from './i18n.js';

export const EMBED_STRINGS = {
  elementLabel: { zh: '注意力计算（可交互）', en: 'Attention, computed live' },
  stepsLabel: { zh: '步骤', en: 'Steps' },
  toolsLabel: { zh: '导出与分享', en: 'Export and share' },
  exportMatrix: { zh: '导出矩阵', en: 'Export a matrix' },
  matrixLabel: { zh: '矩阵', en: 'Matrix' },
  formatLabel: { zh: '格式', en: 'Format' },
  formatCsv: { zh: 'CSV', en: 'CSV' },
  formatJson: { zh: 'JSON', en: 'JSON' },
  formatLatex: { zh: 'LaTeX bmatrix', en: 'LaTeX bmatrix' },
  formatMarkdown: { zh: 'Markdown 表格', en: 'Markdown table' },
  formatSvg: { zh: '热力图 SVG', en: 'Heatmap SVG' },
  formatPng: { zh: '热力图 PNG', en: 'Heatmap PNG' },
  download: { zh: '下载', en: 'Download' },
  copy: { zh: '复制', en: 'Copy' },
  linesSvg: { zh: '连线图 SVG', en: 'Lines view SVG' },
  linesPng: { zh: '连线图 PNG', en: 'Lines view PNG' },
  stateJson: { zh: '全部状态 JSON', en: 'Whole state as JSON' },
  numpyScript: { zh: 'Python/numpy 脚本', en: 'Python/numpy script' },
  wholeExample: { zh: '整个例子', en: 'The whole example' },
  shareTitle: { zh: '分享与嵌入', en: 'Share and embed' },
  copyLink: { zh: '复制链接', en: 'Copy link' },
  copyElement: { zh: '复制嵌入代码（自定义元素）', en: 'Copy embed code (custom element)' },
  copyIframe: { zh: '复制嵌入代码（iframe）', en: 'Copy embed code (iframe)' },
  copied: { zh: '已复制到剪贴板。', en: 'Copied to the clipboard.' },
  copyFallback: { zh: '无法访问剪贴板，请手动复制下面的文字：', en: 'The clipboard is not available; copy the text below:' },
  downloaded: { zh: '已生成文件 {name}。', en: 'Saved {name}.' },
  exporting: { zh: '正在生成 {name}：{percent}%…', en: 'Writing {name}: {percent} %…' },
  downloadedHeatmap: {
    zh: '已生成文件 {name}：矩阵太大，写不下数值，图中是与页面上相同的热力图。',
    en: 'Saved {name}: too large to write its values, it is the heatmap as on screen.',
  },
  downloadedHeatmapBinned: {
    zh: '已生成文件 {name}：与页面上相同的热力图，每个像素是 {rows}×{cols} 个格子的平均值。',
    en: 'Saved {name}: the heatmap as on screen, each pixel the mean of a {rows} × {cols} block of cells.',
  },
  errExport: { zh: '无法生成 {name}（浏览器内存不足或无法绘图），没有保存任何文件。', en: '{name} could not be made (the browser ran out of memory or could not draw it); nothing was saved.' },
  errExportSvgLarge: {
    zh: '{name} 是 {rows} × {cols}：热力图 SVG 要写出每个数值，最多 {max} 个格子。请用热力图 PNG（与页面上相同的热力图）或 CSV/JSON（全部数值）。',
    en: '{name} is {rows} × {cols}: a heatmap SVG writes every value, for at most {max} cells. Use Heatmap PNG (the heatmap as on screen) or CSV/JSON (every number).',
  },
  errExportTextLarge: {
    zh: '{name} 是 {rows} × {cols}：LaTeX 和 Markdown 供人阅读，最多 {max} 个格子。全部数值请用 CSV 或 JSON。',
    en: '{name} is {rows} × {cols}: LaTeX and Markdown are for reading, at most {max} cells. Use CSV or JSON for every number.',
  },
  errExportLines: {
    zh: '连线图最多画 {max} 个词元，这里有 {count} 个，连线太密无法阅读。请导出热力图。',
    en: 'The lines view is drawn for at most {max} tokens; there are {count}, too dense to read. Export a heatmap instead.',
  },
  importTitle: { zh: '导入', en: 'Import' },
  importInto: { zh: '导入到', en: 'Import into' },
  importChoose: { zh: '选择文件…', en: 'Choose a file…' },
  importHint: {
    zh: '状态 JSON、CSV/TSV 或 NumPy .npy（float64/float32），也可以把文件拖到这里。文件名为 x、wq、wk、wv、wo、c（可带头号，如 wq.2）时自动对应矩阵。',
    en: 'State JSON, CSV/TSV or NumPy .npy (float64/float32); you can also drop files here. Files named x, wq, wk, wv, wo or c (with a head number, e.g. wq.2) go to that matrix.',
  },
  imported: { zh: '已导入 {file} → {name}。', en: 'Imported {file} → {name}.' },
  importedState: { zh: '已导入状态 {file}。', en: 'Imported the state {file}.' },
  dropHere: { zh: '松开即可导入', en: 'Drop to import' },
  embedTitle: { zh: '注意力计算', en: 'Attention' },
  openFull: { zh: '在完整页面中打开', en: 'Open in the full page' },

  errImportType: {
    zh: '{file}：不支持这种文件。请用 .json（状态）、.csv/.tsv/.txt 或 .npy。',
    en: '{file}: this kind of file is not supported. Use .json (state), .csv/.tsv/.txt or .npy.',
  },
  errImportRead: { zh: '{file}：无法读取文件。', en: '{file}: the file could not be read.' },
  errImportMatrix: { zh: '{file}：{detail}', en: '{file}: {detail}' },
  errIn: { zh: '{name}：{detail}', en: '{name}: {detail}' },
  errCsv: {
    zh: '第 {row} 行第 {col} 列不是数字（“{text}”）。',
    en: 'row {row}, column {col} is not a number (“{text}”).',
  },
  errCsvShape: { zh: '不是一个完整的矩阵（行为空或各行长度不同）。', en: 'not a complete matrix (an empty row, or rows of different lengths).' },
  errNpyMagic: { zh: '不是 NumPy .npy 文件（文件头不对），或文件已损坏。', en: 'not a NumPy .npy file (wrong header), or the file is corrupt.' },
  errNpyVersion: { zh: '不支持的 .npy 格式版本 {version}。', en: 'unsupported .npy format version {version}.' },
  errNpyHeader: { zh: '.npy 文件头无法解析，文件可能已损坏。', en: 'the .npy header cannot be read; the file may be corrupt.' },
  errNpyDtype: {
    zh: '不支持的数据类型 {dtype}：只支持 float64（<f8）和 float32（<f4）。可用 a.astype(np.float64) 转换。',
    en: 'unsupported dtype {dtype}: only float64 (<f8) and float32 (<f4) are supported. Convert with a.astype(np.float64).',
  },
  errNpyShape: {
    zh: '形状 {shape} 不是二维矩阵：需要 (行, 列)，且都至少为 1。',
    en: 'shape {shape} is not a matrix: it must be (rows, columns), both at least 1.',
  },
  errNpyTruncated: {
    zh: '数据长度不对：形状 {shape} 需要 {expected} 字节，文件里有 {actual} 字节。文件可能被截断或已损坏。',
    en: 'wrong data length: shape {shape} needs {expected} bytes, the file has {actual}. It may be truncated or corrupt.',
  },
  errNpyNotFinite: {
    zh: '第 {row} 行第 {col} 列是 {text}：只能用有限的数。',
    en: 'row {row}, column {col} is {text}: only finite numbers can be used.',
  },
  errState: { zh: '状态无效：{detail}', en: 'The state is not valid: {detail}' },
  errStateJson: { zh: '不是有效的 JSON。', en: 'it is not valid JSON.' },
  errBooleanEntry: {
    zh: '第 {index} 项“{text}”应为 true、false、1 或 0。',
    en: 'entry {index}, “{text}”, must be true, false, 1 or 0.',
  },
  errStateHash: { zh: '链接里的状态已损坏，无法读取。', en: 'the state in the link is damaged and cannot be read.' },
  errStateVersion: {
    zh: '版本 {version} 不受支持（这个版本能读的是 {supported}）。',
    en: 'version {version} is not supported (this version reads {supported}).',
  },
  errStateField: { zh: '“{field}” {problem}', en: '“{field}” {problem}' },
  probMissing: { zh: '缺失。', en: 'is missing.' },
  probMatrix: { zh: '要是由数字行组成的矩阵（每行长度相同，都是有限的数）。', en: 'must be a matrix: rows of finite numbers, all the same length.' },
  probTokens: { zh: '要是非空字符串组成的数组。', en: 'must be an array of non-empty strings.' },
  probToken: { zh: '的第 {n} 个词元要是非空字符串。', en: 'must hold non-empty strings: token {n} is not one.' },
  probTokenLong: {
    zh: '的词元最多 {max} 个字符：第 {n} 个有 {length} 个。',
    en: 'must hold tokens of at most {max} characters: token {n} has {length}.',
  },
  probTooMany: { zh: '有 {count} 个词元，最多 {max} 个。', en: 'has {count} tokens; at most {max} are allowed.' },
  probStep: { zh: '要是步骤的标识，例如 softmax。', en: 'must be a step id such as softmax.' },
  probStepOf: {
    zh: '要是 all、1 到 {count} 的步骤序号，或 {list} 之一。',
    en: 'must be all, a step number from 1 to {count}, or one of {list}.',
  },
  probDecimalComma: { zh: '要用小数点书写：写 0.5，不写 0,5。', en: 'must be written with a decimal point: 0.5, not 0,5.' },
  probContext: { zh: '要是 { tokens, x } 对象。', en: 'must be an object { tokens, x }.' },
  probView: { zh: '要是 { step, head, lang, decimals } 对象。', en: 'must be an object { step, head, lang, decimals }.' },
  probMatrixRow: { zh: '的第 {row} 行要是非空的数字数组。', en: 'must be a matrix: row {row} is not a non-empty array of numbers.' },
  probMatrixRagged: {
    zh: '的第 {row} 行有 {count} 个数，第 1 行有 {expected} 个：每行长度要相同。',
    en: 'must be a matrix: row {row} has length {count} but row 1 has length {expected}; all rows must have the same length.',
  },
  probMatrixCell: {
    zh: '第 {row} 行第 {col} 列是 {text}：要求有限的数。',
    en: 'has {text} at row {row}, column {col}: a finite number is expected.',
  },
  probBoolean: { zh: '要是 true 或 false。', en: 'must be true or false.' },
  probBooleans: { zh: '要是每个键一个 true/false 的数组（共 {n} 个）。', en: 'must be an array of true/false, one per key ({n}).' },
  probTemperature: { zh: '要是大于 0 的有限数。', en: 'must be a finite number above 0.' },
  probShape: { zh: '形状是 {rows} × {cols}，应为 {expected}。', en: 'is {rows} × {cols}, but must be {expected}.' },
  probRows: { zh: '有 {rows} 行，但有 {tokens} 个词元。', en: 'has {rows} rows but there are {tokens} tokens.' },
  probHeads: { zh: '要是 1 到 {max} 个头的数组，每个头有 wq、wk、wv。', en: 'must be an array of 1 to {max} heads, each with wq, wk, wv.' },
  probDim: { zh: '的维度要在 1 到 {max} 之间。', en: 'must have dimensions from 1 to {max}.' },
  probOneOf: { zh: '要是 {list} 之一。', en: 'must be one of {list}.' },
  probUnknown: { zh: '不是已知的字段。', en: 'is not a known field.' },
  probInteger: { zh: '要是 {min} 到 {max} 之间的整数。', en: 'must be a whole number from {min} to {max}.' },
  errAttribute: { zh: '属性 {name} 无效：{detail}', en: 'Attribute {name} is not valid: {detail}' },
  errLoadCsp: {
    zh: '注意力计算引擎无法启动：这个网页的内容安全策略（Content-Security-Policy）不允许 WebAssembly。网站需要在 script-src 中加入 \'wasm-unsafe-eval\'（见 docs/authoring.md）。',
    en: "The attention engine cannot start: this page's Content-Security-Policy does not allow WebAssembly. The site must add 'wasm-unsafe-eval' to script-src (see docs/authoring.md).",
  },
  errLoadMissing: {
    zh: '注意力计算引擎没有加载：页面上有元素的代码，却没有引擎（createAttentionEngine）。请用 <script src="attention-visualizer.js"> 引入完整脚本；用打包工具时 import \'attention-visualizer\'，不要只打包元素的源码。',
    en: 'The attention engine is missing: the page has the element\'s code but not the engine (createAttentionEngine). Load the whole script with <script src="attention-visualizer.js">; with a bundler, import \'attention-visualizer\' rather than the element\'s source alone.',
  },
  errLoadNoWasm: {
    zh: '注意力计算引擎无法启动：这个浏览器没有 WebAssembly（或已被关闭），而引擎需要它。',
    en: 'The attention engine cannot start: this browser has no WebAssembly (or it is turned off), and the engine needs it.',
  },
  errLoad: { zh: '注意力计算引擎无法启动：{detail}', en: 'The attention engine could not start: {detail}' },
  errMessage: { zh: '消息无效：{detail}', en: 'The message is not valid: {detail}' },
};

export function say(lang, key, params = {}) {
  const entry = EMBED_STRINGS[key];
  if (!entry) return translate(lang, key, params);
  const value = entry[lang];
  return value.replace(/\{(\w+)\}/g, (match, name) => (name in params ? String(params[name]) : match));
}

// A message descriptor {key, params}; a params value that is itself a
// descriptor is described first (errState with its detail, and so on).
export function sayMessage(lang, message) {
  const params = {};
  for (const [name, value] of Object.entries(message.params || {})) {
    params[name] = value && typeof value === 'object' && 'key' in value ? sayMessage(lang, value) : value;
  }
  if (!EMBED_STRINGS[message.key] && STRINGS[message.key]) return describe(lang, { key: message.key, params });
  return say(lang, message.key, params);
}

// Why the engine did not load ({code, message} from createAttentionEngine(), or 'missing'
// from the element), in words for the page's reader.
const LOAD_FAILURES = { csp: 'errLoadCsp', missing: 'errLoadMissing', no_wasm: 'errLoadNoWasm' };
export function sayLoadFailure(lang, { code, message }) {
  return LOAD_FAILURES[code] ? say(lang, LOAD_FAILURES[code]) : say(lang, 'errLoad', { detail: message });
}
