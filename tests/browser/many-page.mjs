// A plain tutorial page with `count` <attention-visualizer> elements between paragraphs, for
// `npm run bench`'s elements section and many-elements.test.mjs (issue 32 item 14). Each
// element has its own sentence of 3 to 10 tokens; `script` is the element's script address.
const SENTENCES = ['我爱你', 'the cat sat on the mat', '今天天气很好', 'attention is all you need', '我们一起学习注意力',
  'a b c d e f g h i j', '他喜欢读书', 'queries meet keys and values here', '猫坐在垫子上', 'one two three four five'];

export function manyElementsPage(count, script) {
  const sections = Array.from({ length: count }, (_, i) => `<h2>Section ${i + 1}</h2>
<p>Some tutorial text before example ${i + 1}: each example shows the attention of its own sentence.</p>
<attention-visualizer id="av${i}" sentence="${SENTENCES[i % SENTENCES.length]}" lang="${i % 2 ? 'zh' : 'en'}"></attention-visualizer>`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${count} elements</title><style>body { max-width: 46rem; margin: 0 auto; padding: 0 1rem; font-family: sans-serif; }</style>
<script src="${script}"></script></head>
<body><h1>${count} elements on a page</h1>
${sections.join('\n')}
</body></html>`;
}
