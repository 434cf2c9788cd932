// Reads a NumPy .npy file (format versions 1, 2 and 3) holding a 2-D float64
// or float32 array, in C or Fortran order, little- or big-endian, into rows
// of numbers. The header is a Python dict literal; it is matched field by
// field, never evaluated.
// Returns {ok: true, rows} or {ok: false, message: {key, params}} (i18n.js).

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY
const DTYPES = { f8: 8, f4: 4 };

const fail = (key, params = {}) => ({ ok: false, message: { key, params } });

function headerField(header, name) {
  const match = new RegExp(`['"]${name}['"]\\s*:\\s*('[^']*'|"[^"]*"|True|False|\\([^)]*\\))`).exec(header);
  return match ? match[1] : null;
}

// data: an ArrayBuffer or a Uint8Array.
export function parseNpy(data) {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  if (bytes.length < 10 || MAGIC.some((b, i) => bytes[i] !== b)) return fail('errNpyMagic');
  const major = bytes[6];
  if (major < 1 || major > 3) return fail('errNpyVersion', { version: `${major}.${bytes[7]}` });
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const headerStart = major === 1 ? 10 : 12;
  const dataStart = headerStart + headerLength;
  if (dataStart > bytes.length) return fail('errNpyHeader');
  const header = new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(bytes.subarray(headerStart, dataStart));

  const descr = headerField(header, 'descr');
  const fortran = headerField(header, 'fortran_order');
  const shapeText = headerField(header, 'shape');
  if (!descr || !fortran || !shapeText) return fail('errNpyHeader');
  const dtype = descr.slice(1, -1);
  const typeMatch = /^([<>=]?)(f[48])$/.exec(dtype);
  // '=' is native order; every platform numpy writes .npy on today is little-endian.
  if (!typeMatch) return fail('errNpyDtype', { dtype });
  const littleEndian = typeMatch[1] !== '>';
  const size = DTYPES[typeMatch[2]];

  const dims = shapeText.slice(1, -1).split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (!dims.every((d) => /^\d+$/.test(d))) return fail('errNpyHeader');
  const shape = dims.map(Number);
  const shapeLabel = `(${shape.join(', ')}${shape.length === 1 ? ',' : ''})`;
  if (shape.length !== 2 || shape[0] < 1 || shape[1] < 1) return fail('errNpyShape', { shape: shapeLabel });
  const [rows, cols] = shape;
  const expected = rows * cols * size;
  const actual = bytes.length - dataStart;
  if (actual !== expected) return fail('errNpyTruncated', { shape: shapeLabel, expected, actual });

  const read = size === 8 ? (o) => view.getFloat64(o, littleEndian) : (o) => view.getFloat32(o, littleEndian);
  const result = [];
  for (let r = 0; r < rows; r++) {
    const row = new Array(cols);
    for (let c = 0; c < cols; c++) {
      // Fortran order stores column after column.
      const index = fortran === 'True' ? c * rows + r : r * cols + c;
      const value = read(dataStart + index * size);
      if (!Number.isFinite(value)) return fail('errNpyNotFinite', { row: r + 1, col: c + 1, text: String(value) });
      row[c] = value;
    }
    result.push(row);
  }
  return { ok: true, rows: result };
}
