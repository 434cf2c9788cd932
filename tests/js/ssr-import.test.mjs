// A static-site build (VitePress, Astro, a server render) imports the element's module under
// node and must then exit: nothing the module does on import may keep node's event loop alive
// (an open MessagePort did: VitePress's build never ended).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

for (const file of ['attention-visualizer.mjs', 'attention-visualizer.js']) {
  test(`importing dist/${file} under node defines nothing and lets node exit`, () => {
    const url = pathToFileURL(path.resolve('dist', file)).href;
    const code = `await import(${JSON.stringify(url)}); console.log(typeof customElements);`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 30000 });
    assert.equal(run.signal, null, `node did not exit within 30 s after importing ${file}`);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), 'undefined');
  });
}
