// Writes what editors and tools read about <attention-visualizer>, from the element's one
// declaration of its attributes (web/src/attributes.js): custom-elements.json (the Custom
// Elements Manifest, package.json's `customElements`) and vscode.html-custom-data.json (VS Code's
// HTML custom data). tests/browser/package.test.mjs checks that the files are what this writes
// and that they list the attributes the built element observes.
//   node scripts/make-element-data.mjs           write the files
//   node scripts/make-element-data.mjs --check   exit 1 when a file is not what it would write
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ATTRIBUTES } from '../web/src/attributes.js';

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

// file (relative to the repository) → its text
export function elementData() {
  return {
    'custom-elements.json': json(manifest()),
    'vscode.html-custom-data.json': json(vscodeData()),
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
      console.error(`make-element-data: ${file} is not what web/src/attributes.js gives (run node scripts/make-element-data.mjs)`);
    } else {
      writeFileSync(target, text);
      console.log(`make-element-data: wrote ${file}`);
    }
  }
  process.exit(stale > 0 ? 1 : 0);
}
