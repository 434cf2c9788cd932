// The embed code: the markup that shows exactly a state, in each of the forms the export
// panel offers (tools.js EMBED_FORMS), from the attributes the element's codec writes
// (attributes.js embedAttributes, the inverse of its reading).

import { translate } from '../ui/i18n.js';
import { encodeHash } from '../state/link.js';
import { excerpt } from '../ui/quote.js';
import { EMBED_FORMS } from '../views/tools.js';
import { ATTRIBUTES, embedAttributes } from './attributes.js';

const htmlAttribute = (text) => String(text).replace(/&/g, '&amp;').replace(/'/g, '&#39;').replace(/</g, '&lt;');

// The address the embed code gives a file next to the script (attention-visualizer.js,
// embed.html): the path from the page the code is copied on (pageUrl) to it, so that the
// code works wherever the author's site lives, and never names a file: address or the
// author's own machine. Only a script on another web host (a CDN) keeps its full address.
export function siblingPath(file, scriptUrl, pageUrl) {
  const target = new URL(file, scriptUrl);
  const page = new URL(pageUrl);
  const local = (url) => url.protocol === 'file:' || ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (target.protocol !== page.protocol || target.host !== page.host) return local(target) ? file : target.href;
  const from = page.pathname.split('/').slice(0, -1);
  const to = target.pathname.split('/');
  let common = 0;
  while (common < from.length && common < to.length - 1 && from[common] === to[common]) common++;
  return [...from.slice(common).map(() => '..'), ...to.slice(common)].join('/');
}

// A Hugo shortcode parameter: a raw string in backticks (taken as it is, `}}` and quotes
// too); a backtick inside JSON is written \u0060, elsewhere the value is quoted with \".
function hugoParameter([name, value, json]) {
  if (value === '') return `${name}="true"`;
  const text = json ? value.replace(/`/g, '\\u0060') : value;
  return text.includes('`') ? `${name}="${text.replace(/"/g, '\\"')}"` : `${name}=\`${text}\``;
}

// A keyword of show() (hosts/jupyter): JSON text is a Python literal of the same value
// (strings, numbers, lists, dicts), as is a whole number; flags are True/False; other text a string.
const FLAGS = ATTRIBUTES.filter((a) => a.form === 'boolean').map((a) => a.name);
function pythonKeyword([name, value, json]) {
  const keyword = name.replace(/-/g, '_');
  if (FLAGS.includes(name)) return `${keyword}=${value === 'false' ? 'False' : 'True'}`; // '' or 'true': on
  if (name === 'key-padding') return `${keyword}=[${value.split(',').map((v) => (v === 'true' ? 'True' : 'False')).join(', ')}]`;
  return `${keyword}=${json || /^[1-9]\d{0,5}$/.test(value) ? value : JSON.stringify(value)}`; // a count as a number
}

// The markup that shows exactly `state`, in one of EMBED_FORMS. config: [name, value] display
// attributes (steps, panels, editable, theme); scriptUrl: where attention-visualizer.js and
// embed.html are; pageUrl: the page the code is copied on.
export function embedCode(form, state, config, scriptUrl, pageUrl) {
  if (!EMBED_FORMS.includes(form)) throw new TypeError(`embedCode(): the form is one of ${EMBED_FORMS.join(', ')}, not ${excerpt(String(form))}`);
  const sibling = (file) => siblingPath(file, scriptUrl, pageUrl);
  if (form === 'iframe') {
    const query = new URLSearchParams(config);
    const src = `${sibling('embed.html')}${[...query].length > 0 ? `?${query}` : ''}#${encodeHash(state)}`;
    return `<iframe src="${src.replace(/&/g, '&amp;').replace(/"/g, '%22')}" title="${htmlAttribute(translate(state.view.lang, 'embedTitle'))}" width="100%" height="720" loading="lazy"></iframe>\n`;
  }
  const attrs = embedAttributes(state, config);
  if (form === 'hugo') return `{{< attention-visualizer\n${attrs.map((a) => `  ${hugoParameter(a)}`).join('\n')} >}}\n`;
  if (form === 'jupyter') return `from attention_visualizer import show\n\nshow(\n${attrs.map((a) => `    ${pythonKeyword(a)},`).join('\n')}\n)\n`;
  const markup = attrs.map(([name, value]) => (value === '' ? `  ${name}` : `  ${name}='${htmlAttribute(value)}'`)).join('\n');
  const element = `<attention-visualizer\n${markup}>\n</attention-visualizer>\n`;
  // MkDocs: the script is mkdocs.yml's extra_javascript, linked on every page; in a <div>, a
  // block of raw HTML that Markdown leaves alone (else it reads the element's lines as a paragraph)
  if (form === 'mkdocs') return `<div class="attention-visualizer">\n${element}</div>\n`;
  return `<script src="${sibling('attention-visualizer.js')}"></script>\n${element}`;
}
