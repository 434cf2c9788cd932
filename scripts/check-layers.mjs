// The front end's layers (web/src/<layer>/): every module sits in one, an import only points
// to its own layer or one below, and no modules import each other in a loop. Run by the lint.
//   node scripts/check-layers.mjs
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SRC = path.join(ROOT, 'web/src');
// Bottom up. views sit below edit: the editor's grids are drawn by the views' tables, and no
// view edits anything.
export const LAYERS = ['ui', 'io', 'state', 'engine', 'views', 'edit', 'element', 'page'];
// Today's upward imports, each to be removed (issue 34): an entry that no longer occurs is an
// error too, so this list only shrinks.
const KNOWN_UPWARD = new Set([
]);
const KNOWN_CYCLES = new Set([]);

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.\.?\/[^'"]+)['"]/g;

function modules(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) return modules(abs);
    return e.name.endsWith('.js') ? [abs] : [];
  });
}

export function checkLayers() {
  const problems = [];
  const graph = new Map();
  const name = (abs) => path.relative(SRC, abs).split(path.sep).join('/');
  const layerOf = (abs) => LAYERS.indexOf(name(abs).split('/')[0]);
  for (const file of modules(SRC)) {
    if (layerOf(file) < 0 || !name(file).includes('/')) problems.push(`${name(file)}: not in a layer folder (${LAYERS.join(', ')})`);
    const targets = [...readFileSync(file, 'utf8').matchAll(IMPORT)]
      .map((m) => path.resolve(path.dirname(file), m[1]))
      .filter((t) => t.startsWith(SRC + path.sep) && t.endsWith('.js'));
    graph.set(file, targets);
  }
  const seenUpward = new Set();
  for (const [file, targets] of graph) {
    for (const t of targets) {
      if (layerOf(t) <= layerOf(file)) continue;
      const edge = `${name(file)} -> ${name(t)}`;
      if (KNOWN_UPWARD.has(edge)) seenUpward.add(edge);
      else problems.push(`${edge}: imports from a higher layer`);
    }
  }
  for (const edge of KNOWN_UPWARD) if (!seenUpward.has(edge)) problems.push(`${edge}: gone, remove it from KNOWN_UPWARD`);
  // cycles: the strongly connected components of more than one module (Tarjan), each named by
  // its modules in order
  const cycles = new Set();
  const index = new Map();
  const low = new Map();
  const stack = [];
  const visit = (file) => {
    index.set(file, index.size);
    low.set(file, index.get(file));
    stack.push(file);
    for (const t of graph.get(file) || []) {
      if (!index.has(t)) {
        visit(t);
        low.set(file, Math.min(low.get(file), low.get(t)));
      } else if (stack.includes(t)) low.set(file, Math.min(low.get(file), index.get(t)));
    }
    if (low.get(file) !== index.get(file)) return;
    const members = stack.splice(stack.indexOf(file));
    if (members.length > 1) cycles.add(members.map(name).sort().join(', '));
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  for (const cycle of cycles) if (!KNOWN_CYCLES.has(cycle)) problems.push(`${cycle}: import each other in a loop`);
  for (const cycle of KNOWN_CYCLES) if (!cycles.has(cycle)) problems.push(`${cycle}: no longer a loop, remove it from KNOWN_CYCLES`);
  return { modules: graph.size, problems };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { modules: count, problems } = checkLayers();
  for (const p of problems) console.error(`check-layers: ${p}`);
  console.log(`check-layers: ${count} modules in ${LAYERS.length} layers, ${problems.length} problems`);
  process.exit(problems.length ? 1 : 0);
}
