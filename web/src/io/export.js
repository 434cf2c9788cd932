// Everything the page can export, as text: a matrix as CSV, JSON, a LaTeX
// bmatrix or a Markdown table; a heatmap or the lines view as SVG (PNG is
// this SVG rasterised, or for a large matrix the on-screen heatmap, see
// tools.js); and a Python/numpy script that recomputes a state (state/schema.js)
// and prints every step.
// CSV and JSON keep full float64 precision (shortest round-trip); LaTeX and
// Markdown are for reading and use the decimals on screen. A masked score
// (−∞) is -inf in CSV, null in JSON, -\infty in LaTeX and −∞ in Markdown.
// A matrix is rows of numbers: arrays, or typed-array row views (rows.js).
// Its cells are always made with Array.from(row, f): row.map would keep a
// typed row typed and turn the text f makes back into numbers (or NaN).
// Token text reaches only the Markdown table, the SVGs and the numpy script
// (as a JSON string literal); it is escaped there so that it is only ever text.

import { formatNumber } from '../ui/format.js';
import { cellColor, largestMagnitude, textColorFor, rgbCss } from '../ui/color.js';

// Text any document can hold: a lone surrogate half and the noncharacters
// U+FFFE/U+FFFF (not allowed in XML) become U+FFFD; C0 controls and DEL (XML
// forbids most of them; a newline would end a Markdown table row) become
// their visible Control Pictures, U+2400–U+241F and U+2421 (a newline: ␊).
function plainText(text) {
  return Array.from(String(text), (ch) => {
    const code = ch.codePointAt(0); // a lone surrogate half comes alone, as its own code
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    if (code === 0x7f) return '\u2421';
    return (code >= 0xd800 && code <= 0xdfff) || code === 0xfffe || code === 0xffff ? '\ufffd' : ch;
  }).join('');
}

const full = (v) => (v === -Infinity ? '-inf' : String(v));

// CSV and JSON as text parts: rows [from, to) of the matrix, to be joined
// (or handed to a Blob) in order, so that a large export can be built in
// slices between which the page stays responsive (tools.js).
// Numbers only: the CSV reads back as a matrix (parse.js, numpy.loadtxt(delimiter=',')).
const csvRows = (data, from, to) => {
  let text = '';
  for (let r = from; r < to; r++) text += `${Array.from(data[r], full).join(',')}\n`;
  return text;
};
// JSON: '[', the rows separated by ',', then ']' (the text JSON.stringify gives the whole).
const jsonRows = (data, from, to) => {
  let text = from === 0 ? '[' : '';
  for (let r = from; r < to; r++) {
    text += `${r > 0 ? ',' : ''}${JSON.stringify(Array.from(data[r], (v) => (Number.isFinite(v) ? v : null)))}`;
  }
  return to === data.length ? `${text}]\n` : text;
};

// A long text given in pieces (add), as Blobs of its UTF-8 of at most `size` bytes each
// (blobs, once done): each piece encoded into one buffer as it comes, a Blob made when the
// buffer is full. A character is never split between two Blobs.
export class TextBlobs {
  constructor(size) {
    if (!(size >= 4)) throw new RangeError(`TextBlobs: ${size} bytes cannot hold every character (4 bytes at most)`);
    this.encoder = new TextEncoder();
    this.buffer = new Uint8Array(size);
    this.used = 0;
    this.made = [];
  }

  add(text) {
    for (let rest = text; ;) {
      const { read, written } = this.encoder.encodeInto(rest, this.buffer.subarray(this.used));
      this.used += written;
      if (read === rest.length) return;
      this.flush();
      rest = rest.slice(read);
    }
  }

  flush() {
    if (this.used === 0) return;
    this.made.push(new Blob([this.buffer.subarray(0, this.used)])); // a copy
    this.used = 0;
  }

  done() {
    this.flush();
    return this.made;
  }
}

export const toCsv = (data) => csvRows(data, 0, data.length);
export const toJson = (data) => jsonRows(data, 0, data.length);

export function toLatex(data, decimals) {
  const cell = (v) => (v === -Infinity ? '-\\infty' : formatNumber(v, decimals));
  return `\\begin{bmatrix}\n${data.map((row) => `  ${Array.from(row, cell).join(' & ')}`).join(' \\\\\n')}\n\\end{bmatrix}\n`;
}

// A token as Markdown text: < > & as character references (no HTML), every
// other ASCII punctuation character backslash-escaped (CommonMark: then it is
// literal, so no emphasis, code, link, heading, list or table cell syntax).
const MD_ENTITIES = { '<': '&lt;', '>': '&gt;', '&': '&amp;' };
const markdownText = (text) => plainText(text).replace(/[!-/:-@[-`{-~]/g, (ch) => MD_ENTITIES[ch] || `\\${ch}`);

export function toMarkdown(data, { rowLabels, colLabels, corner = '' }, decimals) {
  const lines = [
    `| ${[corner, ...colLabels].map(markdownText).join(' | ')} |`,
    `|${[corner, ...colLabels].map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`,
    ...data.map((row, r) => `| ${[markdownText(rowLabels[r]), ...Array.from(row, (v) => formatNumber(v, decimals))].join(' | ')} |`),
  ];
  return `${lines.join('\n')}\n`;
}

// ---- SVG ----

const XML_ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const xml = (text) => plainText(text).replace(/[&<>"']/g, (ch) => XML_ENTITIES[ch]);
const FONT = 'system-ui, -apple-system, Segoe UI, Roboto, PingFang SC, Microsoft YaHei, Noto Sans CJK SC, sans-serif';

function svgDocument(width, height, body) {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" `
    + `font-family="${FONT}" font-size="13">\n<rect width="${width}" height="${height}" fill="#ffffff"/>\n${body.join('\n')}\n</svg>\n`;
}

// Rough text width for layout (CJK characters are about twice as wide).
const textWidth = (text, size = 13) => Array.from(String(text)).reduce((w, ch) => w + (ch.charCodeAt(0) > 0x2e80 ? size : size * 0.6), 0);

// A heatmap with values written in each cell, labels and a title.
// spec: {title, data, rowLabels, colLabels, kind ('weights'|'signed'), masked?, decimals}.
export function heatmapSvg({ title, data, rowLabels, colLabels, kind, masked = null, decimals }) {
  const rows = data.length;
  const cols = data[0].length;
  const magnitude = kind === 'signed' ? largestMagnitude(data) : 1;
  const cellW = Math.ceil(Math.max(44, textWidth(formatNumber(-1, decimals), 12) + 12));
  const cellH = 28;
  const left = Math.ceil(Math.max(24, ...rowLabels.map((l) => textWidth(l))) + 14);
  const top = 52;
  const width = left + cols * cellW + 12;
  const height = top + rows * cellH + 12;
  const body = [`<text x="${left}" y="20" font-size="15" font-weight="600" fill="#1c2330">${xml(title)}</text>`];
  colLabels.forEach((label, c) => {
    body.push(`<text x="${left + (c + 0.5) * cellW}" y="${top - 10}" text-anchor="middle" fill="#5b6473">${xml(label)}</text>`);
  });
  data.forEach((row, r) => {
    const y = top + r * cellH;
    body.push(`<text x="${left - 8}" y="${y + cellH / 2 + 4.5}" text-anchor="end" fill="#1c2330">${xml(rowLabels[r])}</text>`);
    row.forEach((v, c) => {
      const x = left + c * cellW;
      const isMasked = masked && masked[r][c];
      const rgb = isMasked ? [217, 220, 225] : cellColor(kind, v, magnitude);
      const text = isMasked && kind === 'weights' ? '0' : formatNumber(v, decimals);
      body.push(`<rect x="${x}" y="${y}" width="${cellW}" height="${cellH}" fill="${rgbCss(rgb)}" stroke="#ffffff"/>`);
      body.push(`<text x="${x + cellW / 2}" y="${y + cellH / 2 + 4.5}" text-anchor="middle" font-size="12" `
        + `fill="${isMasked ? '#3d4450' : textColorFor(rgb)}">${xml(text)}</text>`);
    });
  });
  return svgDocument(width, height, body);
}

// The lines view: query tokens left, key tokens right, one line per weight,
// as opaque and as thick as the weight.
export function linesSvg({ title, tokens, keyTokens, weights }) {
  const row = 28;
  const left = Math.ceil(Math.max(...tokens.map((t) => textWidth(t))) + 24);
  const span = 200;
  const right = Math.ceil(Math.max(...keyTokens.map((t) => textWidth(t))) + 24);
  const top = 40;
  const width = left + span + right;
  const height = top + Math.max(tokens.length, keyTokens.length) * row + 8;
  const body = [`<text x="12" y="20" font-size="15" font-weight="600" fill="#1c2330">${xml(title)}</text>`];
  weights.forEach((rowWeights, i) => rowWeights.forEach((w, j) => {
    body.push(`<line x1="${left}" y1="${top + (i + 0.5) * row}" x2="${left + span}" y2="${top + (j + 0.5) * row}" `
      + `stroke="#2458c6" stroke-opacity="${w.toFixed(4)}" stroke-width="${(0.5 + 4 * w).toFixed(2)}"/>`);
  }));
  tokens.forEach((t, i) => body.push(`<text x="${left - 8}" y="${top + (i + 0.5) * row + 4.5}" text-anchor="end" fill="#1c2330">${xml(t)}</text>`));
  keyTokens.forEach((t, j) => body.push(`<text x="${left + span + 8}" y="${top + (j + 0.5) * row + 4.5}" fill="#1c2330">${xml(t)}</text>`));
  return svgDocument(width, height, body);
}

// ---- the formats of a matrix ----

// How large an export gets. A heatmap SVG (and its PNG) writes every value:
// up to 64 × 64 cells (at n = 2048 it would be 4 million cells, ~2 GB while
// made); beyond that the PNG is the heatmap as on screen (tools.js). LaTeX and
// Markdown are for reading: up to 256 × 256 cells. CSV and JSON hold every
// number at any size (n = 2048: ~50 MB, ~6 s on a loaded machine).
const SVG_CELL_LIMIT = 64 * 64;
const TEXT_CELL_LIMIT = 256 * 256;

// The export panel's formats of a matrix, in its order: id, the label's string
// key, the file's extension and type, the most cells it writes (tooLarge: the
// message beyond), and its writer: parts(data, from, to), the text of rows
// [from, to), for the formats written in slices (tools.js); or write(spec,
// {title, decimals}), the whole text (a PNG: its SVG, drawn by tools.js).
export const MATRIX_FORMATS = [
  { id: 'csv', key: 'formatCsv', ext: 'csv', type: 'text/csv', limit: Infinity, parts: csvRows },
  { id: 'json', key: 'formatJson', ext: 'json', type: 'application/json', limit: Infinity, parts: jsonRows },
  {
    id: 'latex', key: 'formatLatex', ext: 'tex', type: 'text/x-tex', limit: TEXT_CELL_LIMIT, tooLarge: 'errExportTextLarge',
    write: (spec, { decimals }) => toLatex(spec.data, decimals),
  },
  {
    id: 'markdown', key: 'formatMarkdown', ext: 'md', type: 'text/markdown', limit: TEXT_CELL_LIMIT, tooLarge: 'errExportTextLarge',
    write: (spec, { decimals }) => toMarkdown(spec.data, spec, decimals),
  },
  {
    id: 'svg', key: 'formatSvg', ext: 'svg', type: 'image/svg+xml', limit: SVG_CELL_LIMIT, tooLarge: 'errExportSvgLarge',
    write: (spec, { title, decimals }) => heatmapSvg({ title, ...spec, decimals }),
  },
  {
    id: 'png', key: 'formatPng', ext: 'png', type: 'image/png', limit: SVG_CELL_LIMIT, tooLarge: 'errExportSvgLarge',
    write: (spec, { title, decimals }) => heatmapSvg({ title, ...spec, decimals }),
  },
];

// ---- Python/numpy ----

const py = (v) => {
  const text = String(v);
  return /^-?\d+$/.test(text) ? `${text}.0` : text; // JS prints 1 for 1.0; Python reads both, but keep floats visible
};
const pyMatrix = (m, indent = '    ') => `np.array([\n${m.map((row) => `${indent}[${Array.from(row, py).join(', ')}],`).join('\n')}\n])`;
const pyVector = (v) => `np.array([${Array.from(v, py).join(', ')}])`;
const pyBool = (b) => (b ? 'True' : 'False');
const pyString = (s) => JSON.stringify(s); // a JSON string literal is a valid Python str literal

// A standalone script (numpy only) that recomputes the state with the
// engine's conventions and prints each step, one row per line, every
// number as Python's repr() (the shortest text that reads back the same float).
export function numpyScript(state) {
  const multi = state.heads.length > 1 || state.wo !== undefined;
  const lines = [
    '# Scaled dot-product attention, recomputed with numpy.',
    '# Exported from the attention visualizer: the same inputs and options as on screen.',
    'import numpy as np',
    '',
    `tokens = [${state.tokens.map(pyString).join(', ')}]`,
    `X = ${pyMatrix(state.x)}`,
  ];
  if (state.context) {
    lines.push(`context_tokens = [${state.context.tokens.map(pyString).join(', ')}]`, `C = ${pyMatrix(state.context.x)}`);
  } else {
    lines.push('C = X  # self-attention: keys and values come from X too');
  }
  lines.push('heads = [');
  for (const head of state.heads) {
    lines.push('    {', ...['wq', 'wk', 'wv'].map((w) => `        "${w}": ${pyMatrix(head[w], '            ')},`));
    // a head's biases, where it has them: added to every row of Q, K, V
    for (const b of ['bq', 'bk', 'bv']) if (head[b]) lines.push(`        "${b}": ${pyVector(head[b])},`);
    lines.push('    },');
  }
  lines.push(']');
  lines.push(`W_O = ${state.wo ? pyMatrix(state.wo) : 'None'}`);
  lines.push(`b_O = ${state.bo ? pyVector(state.bo) : 'None'}  # the output's bias, added to every row of Concat @ W_O`);
  lines.push(
    `causal = ${pyBool(state.causal)}`,
    `key_padding = np.array([${state.keyPadding.map(pyBool).join(', ')}])  # True: no query looks at this key`,
    `scale_by_sqrt_dk = ${pyBool(state.scaleBySqrtDk)}`,
    `temperature = ${py(state.temperature)}`,
    `positional_encoding = ${pyBool(state.positionalEncoding)}`,
    `alibi = ${pyBool(state.alibi)}`,
    '',
    '',
    'def sinusoidal_pe(n, d):',
    '    # PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(pos / 10000^(2i/d))',
    '    pe = np.zeros((n, d))',
    '    for pos in range(n):',
    '        for i in range(d):',
    '            angle = pos / 10000 ** ((i - i % 2) / d)',
    '            pe[pos, i] = np.sin(angle) if i % 2 == 0 else np.cos(angle)',
    '    return pe',
    '',
    '',
    'def softmax_rows(s, masked):',
    '    # subtract the row max of the unmasked scores; masked weights are 0, and a row',
    '    # with every key masked is all 0 (where PyTorch would give NaN)',
    '    w = np.zeros_like(s)',
    '    for i in range(s.shape[0]):',
    '        keep = ~masked[i]',
    '        if keep.any():',
    '            e = np.exp(s[i, keep] - s[i, keep].max())',
    '            w[i, keep] = e / e.sum()',
    '    return w',
    '',
    '',
    'def show(name, m):',
    '    print(name)',
    '    for row in np.atleast_2d(m):',
    '        print(" ".join(repr(float(v)) for v in row))',
    '',
    '',
    'if positional_encoding:',
    '    X = X + sinusoidal_pe(*X.shape)',
    `    C = ${state.context ? 'C + sinusoidal_pe(*C.shape)' : 'X'}`,
    '    show("X + PE", X)',
    'n_q, n_k = X.shape[0], C.shape[0]',
    'masked = np.zeros((n_q, n_k), dtype=bool)',
    'if causal:',
    '    masked |= np.triu(np.ones((n_q, n_k), dtype=bool), k=1)  # query i looks at keys j <= i',
    'masked |= key_padding[np.newaxis, :]',
    '',
    'outputs = []',
    'for h, head in enumerate(heads):',
    '    Q = X @ head["wq"]',
    '    K = C @ head["wk"]',
    '    V = C @ head["wv"]',
    '    if "bq" in head:  # Q = X W_Q + b_Q: the bias added to every row',
    '        Q = Q + head["bq"]',
    '    if "bk" in head:',
    '        K = K + head["bk"]',
    '    if "bv" in head:',
    '        V = V + head["bv"]',
    '    scores = Q @ K.T',
    '    d_k = Q.shape[1]',
    '    scaled = scores / (np.sqrt(d_k) if scale_by_sqrt_dk else 1.0)',
    '    if alibi:  # ALiBi: head h of H adds -m |i - j|, m = 2^(-8 (h + 1) / H), before the temperature',
    '        m = 2.0 ** (-8.0 * (h + 1) / len(heads))',
    '        bias = -m * np.abs(np.arange(n_q)[:, np.newaxis] - np.arange(n_k)[np.newaxis, :])',
    `        show(${multi ? 'f"head {h + 1} Bias"' : '"Bias"'}, bias)`,
    '        scaled = scaled + bias',
    '    if temperature != 1:',
    '        scaled = scaled / temperature',
    '    scaled = np.where(masked, -np.inf, scaled)',
    '    weights = softmax_rows(scaled, masked)',
    '    output = weights @ V',
    `    prefix = ${multi ? 'f"head {h + 1} "' : '""'}`,
    '    for name, m in [("Q", Q), ("K", K), ("V", V), ("Scores", scores), ("Scaled", scaled),',
    '                    ("Weights", weights), ("Output", output)]:',
    '        show(prefix + name, m)',
    '    outputs.append(output)',
  );
  if (multi) {
    lines.push(
      'concat = np.concatenate(outputs, axis=1)',
      'show("Concat", concat)',
      'if W_O is not None and b_O is not None:',
      '    show("Concat @ W_O + b_O", concat @ W_O + b_O)',
      'elif W_O is not None:',
      '    show("Concat @ W_O", concat @ W_O)',
    );
  }
  return `${lines.join('\n')}\n`;
}
