// Files dropped on the element (editable only): marked while dragged over `root`, imported
// by the export panel (tools.js importFiles) when dropped. target: where the drops are
// taken (the document in full mode, the element's root else).
export function takeDrops(target, root, { editable, importFiles }) {
  for (const type of ['dragenter', 'dragover']) {
    target.addEventListener(type, (event) => {
      if (!editable() || !event.dataTransfer || !event.dataTransfer.types.includes('Files')) return;
      event.preventDefault();
      root.classList.add('dragging');
    });
  }
  target.addEventListener('dragleave', (event) => {
    if (!root.contains(event.relatedTarget)) root.classList.remove('dragging');
  });
  target.addEventListener('drop', (event) => {
    root.classList.remove('dragging');
    if (!editable() || !event.dataTransfer || event.dataTransfer.files.length === 0) return;
    event.preventDefault();
    importFiles([...event.dataTransfer.files]);
  });
}
