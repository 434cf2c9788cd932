// For a browser test file: one headless Chromium and one localhost server of `root` (dist/),
// started before its tests and closed after them. at(file) is a file's address on the server.
// args: more Chromium switches.
import { after, before } from 'node:test';
import { startServer } from '../../scripts/serve.mjs';
import { launchChromium } from './chromium.mjs';

export function browserAndServer(root, { args = [] } = {}) {
  const local = { browser: null, server: null, at: (file) => new URL(file, local.server.url).href };
  before(async () => {
    local.browser = await launchChromium(args);
    local.server = await startServer({ root, port: 0 });
  });
  after(async () => {
    await local.browser?.close();
    await local.server?.close();
  });
  return local;
}
