// What the bindings share (cpp/bindings/*.cpp): typed arrays from the JS wrapper into the core's
// matrices, the core's matrices, vectors and errors out as JS values. The only code besides the
// bindings that knows about Emscripten.
#pragma once

#include <emscripten/val.h>

#include <string>
#include <vector>

#include "errors.h"
#include "kernels.h"

namespace bindings {

using emscripten::val;

// {values: Float64Array, rowLengths: Int32Array} → Matrix, each array copied in one block.
// head >= 0: the matrix is that head's operand (messages say "heads[1].wq").
attn::Error to_matrix(const std::string& name, const val& packed, attn::Matrix* out, int head = -1);

// A view of `size` values at `data` in wasm memory: a copy (Float64Array or Uint8Array, as
// `type` says), or, when `live`, the view itself. A live view is handed out only by
// compute(input, {typed: true, reuse: true}), whose documented rule (docs/api.md) is that it is
// valid until the next call: that call overwrites the workspace it shows (and, when memory
// grows, detaches it).
template <class T>
val copy_or_view(const char* type, size_t size, const T* data, bool live) {
  val view(emscripten::typed_memory_view(size, data));
  return live ? view : val::global(type).new_(view);
}

// Matrix → {rows, cols, data: Float64Array}: a copy unless `live` (above).
val to_js(const attn::Matrix& m, bool live = false);

// Bytes → Uint8Array: a copy unless `live`.
val to_js(const std::vector<unsigned char>& flags, bool live = false);

// Float64Array copy (or view, when live) of a vector.
val vector_to_js(const std::vector<double>& v, bool live = false);

// {error: {code, operand, row, column, head, layer, path?, message}}, which engine.js throws as
// an Error.
val error_to_js(const attn::Error& err);

}  // namespace bindings
