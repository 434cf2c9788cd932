// The "Export and share" panel of the custom element and the full page: export
// a matrix (CSV, JSON, LaTeX, Markdown, heatmap SVG/PNG), the lines view, the
// state and the numpy script; copy a link or the embed code; import files
// (state JSON, CSV/TSV, .npy) by picker or drop. host: {state(), ctx(lang),
// editable(), apply(state, {whole}), rerender(), embedCode(form), baseUrl()}; whole: a
// state file replaces everything (the full page sets the work it replaces aside).
// Every export either saves (or copies) its file or says in the panel why not.

import { translate, describe } from '../ui/i18n.js';
import { el, button, download, nextTask } from '../ui/dom.js';
import { headName } from '../ui/labels.js';
import { matrixCatalog, INPUT_MATRICES } from './catalog.js';
import { blanksOf } from './blanks.js';
import { parseMatrixText } from '../io/parse.js';
import { validateState } from '../state/schema.js';
import { encodeHash } from '../state/link.js';
import { parseStateJson, stateToJson } from '../state/json.js';
import { MATRIX_FORMATS, TextBlobs, linesSvg, numpyScript } from '../io/export.js';
import { parseNpy } from '../io/npy.js';
import { paintHeatmap } from './heatmap.js';
import { heatmapBin } from '../ui/limits.js';
import { LINES_LIMIT } from './lines.js';
import { holdRows, whenRead } from '../engine/rows.js';
import { cellMessage, CELL_CODES } from '../state/model.js';

// CSV and JSON are built in slices of about SLICE_MS, the page free between
// slices (a 4096 × 4096 matrix is 16.7 M numbers: seconds of work, which in one
// task froze the page for ~15 s), the panel saying how far it got every
// PROGRESS_MS. A slice makes rows a chunk of about CHUNK_CELLS cells (~0.6 ms at
// n = 4096) at a time, until SLICE_MS have passed, its text's encoding included
// (making a Blob of it took longer than writing the text: 16 ms of writing made
// 58–69 ms slices). Slices sized beforehand by the last one's pace ran over it
// when a row's pace changed: at n = 4096, 15 ms in one slice of ten and up to 26;
// slices sized for 16 ms took 25–31 ms of a task, and one 76 ms: 10 ms leaves
// room for the collection of the slices' strings and a Blob made. A slice ends
// at SLICE_CELLS too (~10 ms here), so that its text stays small on a fast machine.
const SLICE_MS = 10;
const CHUNK_CELLS = 1 << 12;
const SLICE_CELLS = 1 << 16;
const PROGRESS_MS = 250;
const BLOB_BYTES = 1 << 20;
const PNG_MAX_SIDE = 4096; // px: the SVG is drawn at twice its size, or smaller to fit
const HEATMAP_PNG_SIDE = 1024; // px, about: the large heatmap scaled up by whole pixels

function canvasPng(canvas) {
  return new Promise((resolve, reject) => {
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('toBlob gave no image'))), 'image/png');
  });
}

// PNG: the SVG drawn on a canvas. Its text is well-formed Unicode (export.js),
// so encodeURIComponent cannot throw; a failure to draw rejects.
async function svgToPng(svgText) {
  const image = new Image();
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svgText)}`;
  await image.decode();
  const scale = Math.min(2, PNG_MAX_SIDE / Math.max(image.naturalWidth, image.naturalHeight));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(image.naturalWidth * scale));
  canvas.height = Math.max(1, Math.round(image.naturalHeight * scale));
  canvas.getContext('2d').drawImage(image, 0, 0, canvas.width, canvas.height);
  return canvasPng(canvas);
}

// PNG of a matrix too large to write its values: the heatmap as on screen
// (heatmap.js: a pixel a cell, or the mean of a block of cells beyond 512),
// scaled up by whole pixels to about HEATMAP_PNG_SIDE.
function heatmapPng({ data, kind, masked }) {
  const [binRows, binCols] = heatmapBin(data.length, data[0].length);
  const width = Math.ceil(data[0].length / binCols);
  const height = Math.ceil(data.length / binRows);
  const cell = Math.max(1, Math.floor(HEATMAP_PNG_SIDE / Math.max(width, height)));
  const painted = document.createElement('canvas');
  paintHeatmap(painted, { data, kind, masked: masked || null, cell });
  // painted is `cell` pixels a cell only when it hatched masked cells; 1 otherwise
  const canvas = document.createElement('canvas');
  canvas.width = width * cell;
  canvas.height = height * cell;
  const context = canvas.getContext('2d');
  context.imageSmoothingEnabled = false;
  context.drawImage(painted, 0, 0, canvas.width, canvas.height);
  return canvasPng(canvas);
}

// Import targets: the catalog's inputs (catalog.js) the state has: X, each head's
// W_Q, W_K, W_V, then W_O and C when present.
export function importTargets(state) {
  const several = state.heads.length > 1;
  const present = INPUT_MATRICES.filter(({ id }) => (id !== 'wo' || state.wo) && (id !== 'c' || state.context));
  const perHead = present.filter((m) => m.perHead);
  // a head's inputs together, head by head, where the first of them stands
  return present.flatMap((m) => {
    if (!m.perHead) return [{ id: m.id, label: m.name }];
    if (m !== perHead[0]) return [];
    return state.heads.flatMap((_, h) => perHead.map(({ name, id }) => ({ id: h === 0 ? id : `${id}.${h + 1}`, label: `${name}${several ? ` · ${h + 1}` : ''}`, head: h, w: id })));
  });
}

// A matrix as text (a file, a paste, the text box) that parse.js could not read, as a message.
function textProblem(error) {
  const { code, row, column, text } = error;
  if (code === 'not_number' || code === 'not_finite') return { key: 'errCsv', params: { row: row + 1, col: column + 1, text } };
  if (CELL_CODES.includes(code)) return cellMessage(null, error, []);
  return { key: 'errCsvShape', params: {} };
}

// The matrix an import target names, replaced by `rows` in a copy of the state.
export function withMatrix(state, target, rows) {
  const next = { ...state, heads: state.heads.map((h) => ({ ...h })) };
  if (target.id === 'x') next.x = rows;
  else if (target.id === 'wo') next.wo = rows;
  else if (target.id === 'c') next.context = { ...state.context, x: rows };
  else next.heads[target.head][target.w] = rows;
  return next;
}

// Every matrix the panel exports, by name: the catalog's (catalog.js), a head's
// output only for the head in view; a query × key square greyed where the masks
// remove a key, the scores too (numpy's fixtures, tests/make_export_fixtures.py).
export function exportables(ctx) {
  const catalog = matrixCatalog(ctx);
  const list = {};
  for (const name of Object.keys(catalog)) {
    if (/^head_\d+$/.test(name) && name !== headName(ctx.head)) continue;
    whenRead(list, name, () => (catalog[name].keyMask ? { ...catalog[name], masked: catalog[name].keyMask } : catalog[name]));
  }
  return list;
}

// The forms of the embed code, as the tools offer them: the element in an HTML page (or a
// reveal.js slide), the iframe, Hugo's shortcode (hosts/hugo: Hugo's Markdown drops raw
// HTML), the element in MkDocs' Markdown (its script from mkdocs.yml) and a Jupyter cell
// (hosts/jupyter's show()).
export const EMBED_FORMS = ['element', 'iframe', 'hugo', 'mkdocs', 'jupyter'];

// A link to the full page with the state; embed.html for several heads without
// W_O, which the full page cannot show (it always uses W_O with several heads).
export function shareLink(state, baseUrl) {
  const page = state.heads.length > 1 && !state.wo ? 'embed.html' : 'index.html';
  return `${new URL(page, baseUrl).href}#${encodeHash(state)}`;
}

export class Tools {
  constructor(host) {
    this.host = host;
    this.open = false;
    this.message = null;
    this.copyFallback = null;
  }

  // What the panel's lists hold (the matrices it exports, the inputs a file can replace) in
  // `lang`: a page that keeps the panel while this stays draws it anew when it changes.
  listsKey(lang, ctx = this.host.ctx(lang)) {
    return [lang, ...Object.keys(exportables(ctx)), '', ...importTargets(this.host.state()).map((t) => t.id)].join('|');
  }

  render(lang) {
    const details = el('details', 'av-tools');
    details.open = this.open === true;
    details.addEventListener('toggle', () => { this.open = details.open; });
    const summary = el('summary', '', translate(lang, 'toolsLabel'));
    summary.dataset.focusId = 'tools';
    details.append(summary);
    const body = el('div', 'av-tools-body');
    const row = (labelKey, ...nodes) => {
      const node = el('div', 'av-row');
      node.append(el('span', 'av-row-label', translate(lang, labelKey)), ...nodes);
      return node;
    };
    const matrices = exportables(this.host.ctx(lang));
    const names = Object.keys(matrices);
    const matrix = el('select');
    matrix.setAttribute('aria-label', translate(lang, 'matrixLabel'));
    matrix.dataset.focusId = 'export-matrix';
    for (const name of names) matrix.append(Object.assign(el('option', '', name), { value: name }));
    matrix.value = names.includes(this.exportName) ? this.exportName : 'Weights';
    matrix.addEventListener('change', () => { this.exportName = matrix.value; });
    const format = el('select');
    format.setAttribute('aria-label', translate(lang, 'formatLabel'));
    format.dataset.focusId = 'export-format';
    for (const f of MATRIX_FORMATS) format.append(Object.assign(el('option', '', translate(lang, f.key)), { value: f.id }));
    format.value = this.exportFormat || 'csv';
    format.addEventListener('change', () => { this.exportFormat = format.value; });
    // the current numbers when clicked (the page does not rebuild this panel on every edit)
    const exportButton = (key, copy) => button(translate(lang, key), () => {
      this.exportMatrix(exportables(this.host.ctx(lang))[matrix.value], matrix.value, format.value, copy);
    });
    body.append(row('exportMatrix', matrix, format, exportButton('download', false), exportButton('copy', true)));

    const whole = [
      ['linesSvg', () => this.exportLines(lang, 'svg')],
      ['linesPng', () => this.exportLines(lang, 'png')],
      ['stateJson', () => this.attempt('attention-state.json', () => this.save('attention-state.json', stateToJson(this.host.state()), 'application/json'))],
      ['numpyScript', () => this.attempt('attention.py', () => this.save('attention.py', numpyScript(this.host.state()), 'text/x-python'))],
    ];
    body.append(row('wholeExample', ...whole.map(([key, action]) => button(translate(lang, key), action))));
    // the embed code in the form of the host it goes to: an HTML page, an iframe, Hugo, MkDocs, Jupyter
    const form = el('select');
    form.setAttribute('aria-label', translate(lang, 'embedFor'));
    form.dataset.focusId = 'embed-form';
    for (const f of EMBED_FORMS) form.append(Object.assign(el('option', '', translate(lang, `embedForm_${f}`)), { value: f }));
    form.value = this.embedForm || 'element';
    form.addEventListener('change', () => { this.embedForm = form.value; });
    body.append(row('shareTitle',
      button(translate(lang, 'copyLink'), () => this.copy(shareLink(this.host.state(), this.host.baseUrl()))),
      form,
      button(translate(lang, 'copyEmbed'), () => this.copy(this.host.embedCode(form.value)))));
    if (this.host.editable()) body.append(this.renderImport(lang, row));
    const message = el('p', `av-message${this.message && this.message.error ? ' error' : ''}`, this.message ? this.message.text(lang) : '');
    message.setAttribute('role', 'status');
    body.append(message);
    if (this.copyFallback) {
      const area = el('textarea', 'av-copy-text');
      area.readOnly = true;
      area.value = this.copyFallback;
      body.append(area);
    }
    details.append(body);
    return details;
  }

  renderImport(lang, row) {
    const targets = importTargets(this.host.state());
    const into = el('select');
    into.setAttribute('aria-label', translate(lang, 'importInto'));
    into.dataset.focusId = 'import-into';
    for (const target of targets) into.append(Object.assign(el('option', '', target.label), { value: target.id }));
    into.value = targets.some((t) => t.id === this.importTarget) ? this.importTarget : 'x';
    into.addEventListener('change', () => { this.importTarget = into.value; });
    const picker = el('label', 'av-file');
    const input = el('input');
    input.type = 'file';
    input.multiple = true;
    input.accept = '.json,.csv,.tsv,.txt,.npy';
    input.dataset.focusId = 'import-file';
    input.addEventListener('change', () => this.importFiles([...input.files]));
    picker.append(input, el('span', '', translate(lang, 'importChoose')));
    const wrap = el('div', 'av-field');
    const line = row('importTitle', el('span', 'av-row-label', translate(lang, 'importInto')), into, picker);
    wrap.append(line, el('p', 'hint', translate(lang, 'importHint')));
    return wrap;
  }

  showMessage(message, error = false) {
    this.message = { error, text: (lang) => describe(lang, message) };
    this.open = true;
    this.host.rerender();
  }

  // text: a string of `type`, or a Blob made already.
  save(name, text, type) {
    download(name, typeof text === 'string' ? new Blob([text], { type: `${type};charset=utf-8` }) : text);
    this.showMessage({ key: 'downloaded', params: { name } });
  }

  // Runs an export; anything that fails on the way (memory, drawing an image)
  // is said in the panel, and nothing is saved.
  async attempt(name, exporting) {
    try {
      await exporting();
    } catch {
      this.showMessage({ key: 'errExport', params: { name } }, true);
    }
  }

  // format: an id of MATRIX_FORMATS (export.js), whose size limit, writer and file it follows.
  exportMatrix(spec, name, id, copy) {
    const format = MATRIX_FORMATS.find((f) => f.id === id);
    const file = name.replace(/[^A-Za-z0-9_+-]/g, '_');
    const rows = spec.data.length;
    const cols = spec.data[0].length;
    const { ext } = format;
    // an exercise's blanks still to fill in (blanks.js): no file of their numbers either
    if (spec.blanks) {
      this.showMessage({ key: 'exerciseExportWaits', params: { name, n: spec.blanks.size } }, true);
      return Promise.resolve();
    }
    return this.attempt(`${file}.${ext}`, async () => {
      const decimals = this.host.state().view.decimals;
      if (id === 'png' && !copy && rows * cols > format.limit) {
        download(`${file}.png`, await heatmapPng(spec));
        const [binRows, binCols] = heatmapBin(rows, cols);
        this.showMessage({ key: binRows * binCols > 1 ? 'downloadedHeatmapBinned' : 'downloadedHeatmap', params: { name: `${file}.png`, rows: binRows, cols: binCols } });
        return;
      }
      if (rows * cols > format.limit) {
        this.showMessage({ key: format.tooLarge, params: { name, rows, cols, max: format.limit } }, true);
        return;
      }
      if (format.parts) {
        // each slice's text encoded to UTF-8 in its own slice (as one Blob of strings, 300 MB at
        // n = 4096 took a second in one task; joining them to copy, as long) into one buffer,
        // made a Blob when full (BLOB_BYTES): making a Blob waits for the browser's process (a
        // synchronous call), and a Blob a slice (~600 at n = 4096) waited 0.65–0.9 s in all, up to
        // 30 ms at once; ~200 wait 0.2–0.3 s. A Blob of 8 MB took 51 ms to make; of 1 MB, ~6
        // (the result's arrays stay as they are meanwhile, whatever is edited: rows.js holdRows)
        const release = holdRows(spec.data);
        const blobs = new TextBlobs(BLOB_BYTES);
        try {
          await this.textInSlices(format.parts, spec.data, `${file}.${ext}`, (text) => blobs.add(text));
        } finally {
          release();
        }
        const parts = blobs.done();
        // the whole text's Blob, then its download, each in a task of its own: both wait for
        // the browser's process (a synchronous call) while it still takes in the slices' Blobs,
        // 20–60 ms each in traces at n = 4096, and in the last slice's task they made it 90–117 ms
        await nextTask();
        const blob = new Blob(parts, { type: copy ? 'text/plain' : `${format.type};charset=utf-8` });
        await nextTask();
        if (copy) this.copy(blob);
        else this.save(`${file}.${ext}`, blob);
        return;
      }
      // a PNG is its SVG drawn; copied, either is the SVG's text
      const text = format.write(spec, { title: name, decimals });
      if (copy) this.copy(text);
      else if (id === 'png') {
        download(`${file}.png`, await svgToPng(text));
        this.showMessage({ key: 'downloaded', params: { name: `${file}.png` } });
      } else this.save(`${file}.${ext}`, text, format.type);
    });
  }

  // part(the text of rows(data, from, to)) for a slice's rows, over every row,
  // yielding to the page between slices (see SLICE_MS).
  async textInSlices(rows, data, name, part) {
    const chunk = Math.max(1, Math.floor(CHUNK_CELLS / data[0].length)); // rows
    const most = Math.max(chunk, Math.floor(SLICE_CELLS / data[0].length)); // rows in a slice
    let shown = performance.now();
    let from = 0;
    for (;;) {
      const start = performance.now();
      const end = Math.min(data.length, from + most);
      do {
        const to = Math.min(end, from + chunk);
        part(rows(data, from, to));
        from = to;
      } while (from < end && performance.now() - start < SLICE_MS);
      if (from === data.length) break;
      if (performance.now() - shown >= PROGRESS_MS) {
        this.showMessage({ key: 'exporting', params: { name, percent: Math.floor((100 * from) / data.length) } });
        shown = performance.now();
      }
      await nextTask();
    }
  }

  exportLines(lang, format) {
    const name = `attention-lines.${format}`;
    return this.attempt(name, async () => {
      const ctx = this.host.ctx(lang);
      const { tokens, keyTokens, result } = ctx;
      const blanks = blanksOf(ctx, 'Weights');
      if (blanks) {
        this.showMessage({ key: 'exerciseExportWaits', params: { name: 'Weights', n: blanks.size } }, true);
        return;
      }
      const count = Math.max(tokens.length, keyTokens.length);
      if (count > LINES_LIMIT) {
        this.showMessage({ key: 'errExportLines', params: { count, max: LINES_LIMIT } }, true);
        return;
      }
      const svg = linesSvg({ title: translate(lang, 'linesTitle'), tokens, keyTokens, weights: result.weights });
      if (format === 'svg') this.save(name, svg, 'image/svg+xml');
      else {
        download(name, await svgToPng(svg));
        this.showMessage({ key: 'downloaded', params: { name } });
      }
    });
  }

  // text: a string, or a Blob of plain text (a large export: the browser reads it; no string is made of it here).
  async copy(text) {
    try {
      if (typeof text === 'string') await navigator.clipboard.writeText(text);
      else await navigator.clipboard.write([new ClipboardItem({ 'text/plain': text })]);
      this.copyFallback = null;
      this.showMessage({ key: 'copied', params: {} });
    } catch {
      this.copyFallback = typeof text === 'string' ? text : await text.text();
      this.showMessage({ key: 'copyFallback', params: {} });
    }
  }

  async importFiles(files) {
    for (const file of files) {
      // Awaited one by one: the second file applies to the state the first made.
      await this.importFile(file);
    }
  }

  async importFile(file) {
    const name = file.name;
    const lower = name.toLowerCase();
    const fileError = (detail) => this.showMessage({ key: 'errImportMatrix', params: { file: name, detail } }, true);
    let data;
    try {
      data = lower.endsWith('.npy') ? await file.arrayBuffer() : await file.text();
    } catch {
      this.showMessage({ key: 'errImportRead', params: { file: name } }, true);
      return;
    }
    if (lower.endsWith('.json') && !/^\s*\[/.test(data)) {
      const parsed = parseStateJson(data);
      if (!parsed.ok) return fileError(parsed.message);
      this.host.apply({ ...parsed.state, view: { ...parsed.state.view, lang: this.host.state().view.lang } }, { whole: true });
      return this.showMessage({ key: 'importedState', params: { file: name } });
    }
    let rows;
    if (lower.endsWith('.npy')) {
      const parsed = parseNpy(data);
      if (!parsed.ok) return fileError(parsed.message);
      rows = parsed.rows;
    } else if (/\.(csv|tsv|txt|json)$/.test(lower)) {
      const parsed = parseMatrixText(data);
      if (!parsed.ok) return fileError(textProblem(parsed.error));
      rows = parsed.rows;
    } else {
      return this.showMessage({ key: 'errImportType', params: { file: name } }, true);
    }
    const targets = importTargets(this.host.state());
    // x.npy, wq.csv, W_K.npy, wv.2.npy name their matrix; otherwise the chosen one.
    const stem = lower.replace(/\.[a-z]+$/, '').replace(/^w_([qkvo])/, 'w$1').replace(/_(\d+)$/, '.$1').replace(/\.1$/, '');
    const target = targets.find((t) => t.id === stem) || targets.find((t) => t.id === (this.importTarget || 'x'));
    const next = validateState(withMatrix(this.host.state(), target, rows));
    if (!next.ok) return fileError(next.message.params.detail);
    this.host.apply(next.state);
    this.showMessage({ key: 'imported', params: { file: name, name: target.label } });
  }
}
