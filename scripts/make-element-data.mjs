// Writes what editors, tools and hosts read about <attention-visualizer>, from the element's one
// declaration of its attributes (web/src/element/attributes.js): custom-elements.json (the Custom
// Elements Manifest, package.json's `customElements`), vscode.html-custom-data.json (VS Code's
// HTML custom data), in types/attention-visualizer.d.ts the block between its `generated`
// markers (the unions of step ids, panels, languages, themes, "How it learns"'s goals and
// learning rates and the embed code's forms, and the attributes' interface), in the Hugo
// shortcode the block of its parameters, and the Python host's keywords (_attributes.py). tests/browser/package.test.mjs checks that the
// files are what this writes and that they list the attributes the built element observes;
// tests/browser/types.test.mjs checks the types against the element's runtime objects.
//   node scripts/make-element-data.mjs           write the files
//   node scripts/make-element-data.mjs --check   exit 1 when a file is not what it would write
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ATTRIBUTES, PANELS, THEMES } from '../web/src/element/attributes.js';
import { STEP_IDS } from '../web/src/views/steps.js';
import { LANGUAGES } from '../web/src/ui/i18n.js';
import { GOALS, LEARNING_RATES } from '../web/src/state/learnmath.js';
import { EMBED_FORMS } from '../web/src/views/tools.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TAG = 'attention-visualizer';
const CLASS = 'AttentionVisualizer';
const MODULE = 'dist/attention-visualizer.mjs';
const SUMMARY = 'Scaled dot-product attention, every step, computed in the browser (WebAssembly) for the sentence, vectors and matrices given · 注意力机制的每一步';

const json = (value) => `${JSON.stringify(value, null, 2)}\n`;

function manifest() {
  return {
    schemaVersion: '1.0.0',
    readme: 'README.md',
    modules: [{
      kind: 'javascript-module',
      path: MODULE,
      declarations: [{
        kind: 'class',
        name: CLASS,
        tagName: TAG,
        customElement: true,
        description: SUMMARY,
        superclass: { name: 'HTMLElement' },
        attributes: ATTRIBUTES.map(({ name, type, description }) => ({ name, description, type: { text: type } })),
      }],
      exports: [
        { kind: 'js', name: CLASS, declaration: { name: CLASS, module: MODULE } },
        { kind: 'custom-element-definition', name: TAG, declaration: { name: CLASS, module: MODULE } },
      ],
    }],
  };
}

function vscodeData() {
  const values = (entry) => {
    if (entry.values === 'boolean') return { valueSet: 'v' };
    return entry.values ? { values: entry.values.map((name) => ({ name })) } : {};
  };
  return {
    version: 1.1,
    tags: [{
      name: TAG,
      description: SUMMARY,
      attributes: ATTRIBUTES.map((entry) => ({ name: entry.name, description: entry.description, ...values(entry) })),
    }],
  };
}

const TYPES = 'types/attention-visualizer.d.ts';
const BEGIN = /^\/\/ ---- generated: .*\n/m;
const END = '// ---- end of generated ----\n';

// The generated block of the element's types.
function typeDeclarations() {
  const union = (values) => values.map((v) => (typeof v === 'string' ? `'${v}'` : String(v))).join(' | ');
  const key = (name) => (/^[a-z]\w*$/i.test(name) ? name : `'${name}'`);
  return [
    '/** Step ids, in the order the element shows them (which ones appear depends on the options). */',
    `export type StepId = ${union(STEP_IDS)};`,
    `export type PanelName = ${union(PANELS)};`,
    `export type Language = ${union(LANGUAGES)};`,
    `export type Theme = ${union(THEMES)};`,
    '/** The goals of "How it learns" (the state\'s `learn.goal`). */',
    `export type LearnGoal = ${union(GOALS)};`,
    '/** Its learning rates (Adam\'s step size, the state\'s `learn.lr`). */',
    `export type LearningRate = ${union(LEARNING_RATES)};`,
    '/** The forms of embedCode() and of the tools\' embed code. */',
    `export type EmbedForm = ${union(EMBED_FORMS)};`,
    '',
    '/** The attributes, all strings in HTML (matrices as JSON or "1 0; 0 1"). */',
    'export interface AttentionVisualizerAttributes {',
    ...ATTRIBUTES.flatMap(({ name, type, description }) => [`  /** ${description} */`, `  ${key(name)}?: ${type};`]),
    '}',
    '',
  ].join('\n');
}

const withTypes = (current) => withBlock(TYPES, current, BEGIN, END, typeDeclarations());

// The attributes a host passes on: all but mode (read once, when first connected, never observed).
const PASSED = ATTRIBUTES.filter((a) => a.kind !== 'mount');

// The Hugo shortcode's parameters (its block between the generated markers): the attributes.
const SHORTCODE = 'hosts/hugo/layouts/shortcodes/attention-visualizer.html';
const SHORTCODE_BEGIN = /^\{\{- \/\* ---- generated: .*\n/m;
const SHORTCODE_END = '{{- /* ---- end of generated ---- */ -}}\n';
function shortcodeParameters() {
  const lines = [];
  let line = '{{- $attributes := slice';
  for (const { name } of PASSED) {
    if (line.length + name.length + 3 > 100) {
      lines.push(line);
      line = ' ';
    }
    line += ` "${name}"`;
  }
  return [...lines, `${line} -}}`, ''].join('\n');
}

// The Python host's keywords (attribute names with _ for -), by how show() writes a value.
const PYTHON = 'hosts/python/attention_visualizer/_attributes.py';
function pythonKeywords() {
  const set = (form) => `{${PASSED.filter((a) => (a.form || 'text') === form).map((a) => JSON.stringify(a.name.replace(/-/g, '_'))).join(', ')}}`;
  return [
    '# Generated by scripts/make-element-data.mjs from the element\'s attributes (web/src/element/attributes.js,',
    '# the options\' from web/src/state/options.js): do not edit. show()\'s keywords, each an attribute\'s name',
    '# with "_" for "-", by how its value is written: a matrix (checked, then JSON), JSON, a list (joined by',
    '# commas), a boolean (True/False) or text.',
    `MATRICES = ${set('matrix')}`,
    `JSON = ${set('json')}`,
    `LISTS = ${set('list')}`,
    `BOOLEANS = ${set('boolean')}`,
    `TEXTS = ${set('text')}`,
    '',
  ].join('\n');
}

// current with the text between its generated markers (begin: a RegExp of the first line) made anew.
function withBlock(file, current, begin, end, block) {
  const start = current.match(begin);
  const stop = current.indexOf(end);
  if (!start || stop < start.index) throw new Error(`${file}: its generated markers are missing`);
  const from = start.index + start[0].length;
  return current.slice(0, from) + block + current.slice(stop);
}

// file (relative to the repository) → its text
export function elementData() {
  const read = (file) => readFileSync(path.join(ROOT, file), 'utf8');
  return {
    'custom-elements.json': json(manifest()),
    'vscode.html-custom-data.json': json(vscodeData()),
    [TYPES]: withTypes(read(TYPES)),
    [SHORTCODE]: withBlock(SHORTCODE, read(SHORTCODE), SHORTCODE_BEGIN, SHORTCODE_END, shortcodeParameters()),
    [PYTHON]: pythonKeywords(),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const [file, text] of Object.entries(elementData())) {
    const target = path.join(ROOT, file);
    let current = null;
    try {
      current = readFileSync(target, 'utf8');
    } catch {
      // missing: written (or reported) below
    }
    if (current === text) continue;
    if (check) {
      stale += 1;
      console.error(`make-element-data: ${file} is not what web/src/element/attributes.js gives (run node scripts/make-element-data.mjs)`);
    } else {
      writeFileSync(target, text);
      console.log(`make-element-data: wrote ${file}`);
    }
  }
  process.exit(stale > 0 ? 1 : 0);
}
