// A small static server for dist/ on localhost, used by `npm start` and the browser tests.
//   node scripts/serve.mjs [--port N]   (default 8080; 0 picks a free port)
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
  '.mjs': 'text/javascript; charset=utf-8',
};

function resolveFile(root, urlPath) {
  let rel;
  try {
    rel = decodeURIComponent(urlPath.split('?')[0]);
  } catch {
    return null;
  }
  const file = path.join(root, path.normalize(rel));
  if (file !== root && !file.startsWith(root + path.sep)) return null; // no escaping root
  try {
    const s = statSync(file);
    if (s.isDirectory()) return resolveFile(root, path.join(rel, 'index.html'));
    return s.isFile() ? file : null;
  } catch {
    return null;
  }
}

// Serves `root` on 127.0.0.1; resolves to { url, close() } once listening. `headers` go on
// every response (the tests' host pages: a Content-Security-Policy header).
export function startServer({ root = path.join(ROOT, 'dist'), port = 0, headers = {} } = {}) {
  const server = createServer((req, res) => {
    const file = req.method === 'GET' || req.method === 'HEAD' ? resolveFile(root, req.url) : null;
    if (!file) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('not found\n');
      return;
    }
    res.writeHead(200, {
      'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream',
      'Cache-Control': 'no-cache',
      ...headers,
    });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      resolve({
        url: `http://localhost:${server.address().port}/`,
        close: () => new Promise((done) => server.close(done)),
      });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--port');
  const port = i > 0 ? Number(process.argv[i + 1]) : Number(process.env.PORT || 8080);
  // a busy default port is no reason to fail: take any free one instead
  const { url } = await startServer({ port }).catch((err) => {
    if (err.code !== 'EADDRINUSE' || process.argv.includes('--port')) throw err;
    console.log(`Port ${port} is busy; using a free port.`);
    return startServer({ port: 0 });
  });
  console.log(`Serving dist/ at ${url}  (Ctrl+C stops it)`);
  console.log(`Or open ${path.join(ROOT, 'dist', 'index.html')} directly: it works from file:// too.`);
}
