// The element's theme (theme="light" | "dark" | "auto"): auto follows what the element sits
// on, and the element is drawn again when that changes (the system's scheme, or a host page
// that switches its own theme on <html> or <body>).

import { relativeLuminance } from '../ui/color.js';

let probe = null;
// [r, g, b, alpha] (0–255) of any CSS colour (rgb(), oklch(), color(display-p3 …)): painted on a
// one-pixel canvas and read back.
function rgba(color) {
  if (!probe) probe = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
  probe.clearRect(0, 0, 1, 1);
  probe.fillStyle = color;
  probe.fillRect(0, 0, 1, 1);
  return probe.getImageData(0, 0, 1, 1).data;
}

// element: the <attention-visualizer>; changed(): called when what auto follows may have
// changed (the element compares and draws again when its theme differs).
export class HostTheme {
  constructor(element, changed) {
    this.element = element;
    this.scheme = window.matchMedia('(prefers-color-scheme: dark)');
    this.onScheme = () => changed();
    this.observer = new MutationObserver(() => changed());
  }

  connect() {
    this.scheme.addEventListener('change', this.onScheme);
    for (const node of [document.documentElement, document.body]) if (node) this.observer.observe(node, { attributes: true });
  }

  disconnect() {
    this.scheme.removeEventListener('change', this.onScheme);
    this.observer.disconnect();
  }

  // theme="auto" follows what the element sits on: the nearest ancestor background that is
  // not transparent, else the page's color-scheme ("dark" alone, or "light dark" in a dark
  // system theme). A page that declares no scheme is drawn light whatever the system's theme.
  isDark(theme) {
    if (theme === 'dark' || theme === 'light') return theme === 'dark';
    const element = this.element;
    for (let node = element.parentElement || element.getRootNode().host; node; node = node.parentElement || node.getRootNode().host) {
      const background = getComputedStyle(node).backgroundColor;
      if (background === 'rgba(0, 0, 0, 0)' || background === 'transparent') continue;
      const [r, g, b, alpha] = rgba(background);
      if (alpha >= 128) return relativeLuminance([r, g, b]) < 0.179; // the grey as far from white as from black
    }
    const own = element.parentElement ? getComputedStyle(element.parentElement).colorScheme : 'normal';
    const meta = document.querySelector('meta[name="color-scheme"]');
    const words = (own === 'normal' && meta ? meta.content : own).split(/\s+/);
    return words.includes('dark') && (!words.includes('light') || this.scheme.matches);
  }
}
