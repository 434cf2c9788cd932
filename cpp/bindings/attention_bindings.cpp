// embind layer: the only place that knows about Emscripten. It adapts typed arrays to
// attn::Matrix and back, and turns attn::Error into a plain object that the JS wrapper
// (engine_api.js) throws as an Error. Raw bindings stay private to that wrapper.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>
#include <vector>

#include "attention.h"

using emscripten::val;

namespace {

// {values: Float64Array, rowLengths: Int32Array} → Matrix, each array copied in one block.
attn::Error to_matrix(const std::string& name, const val& packed, attn::Matrix* out) {
  const auto values = emscripten::convertJSArrayToNumberVector<double>(packed["values"]);
  const auto lengths = emscripten::convertJSArrayToNumberVector<int>(packed["rowLengths"]);
  return attn::matrix_from_rows(name, values.data(), lengths.data(),
                                static_cast<int>(lengths.size()), out);
}

// Matrix → {rows, cols, data: Float64Array}: a copy, never a live view of wasm memory
// (views go stale when memory grows).
val to_js(const attn::Matrix& m) {
  val obj = val::object();
  obj.set("rows", m.rows);
  obj.set("cols", m.cols);
  obj.set("data", val::global("Float64Array")
                      .new_(emscripten::typed_memory_view(m.data.size(), m.data.data())));
  return obj;
}

val error_to_js(const attn::Error& err) {
  val obj = val::object();
  obj.set("code", std::string(attn::error_code_name(err.code)));
  obj.set("operand", err.operand);
  obj.set("row", err.row);
  obj.set("column", err.column);
  obj.set("message", err.message);
  val result = val::object();
  result.set("error", obj);
  return result;
}

// operands: {x, wq, wk, wv}, each packed as above. Returns {q, k, v, scores, scaled,
// weights, output} or {error}.
val compute(const val& operands) {
  attn::AttentionInput in;
  const std::pair<const char*, attn::Matrix*> inputs[] = {
      {"x", &in.x}, {"wq", &in.wq}, {"wk", &in.wk}, {"wv", &in.wv}};
  for (const auto& [name, matrix] : inputs) {
    attn::Error err = to_matrix(name, operands[name], matrix);
    if (!err.ok()) return error_to_js(err);
  }
  attn::AttentionResult r;
  attn::Error err = attn::self_attention(in, &r);
  if (!err.ok()) return error_to_js(err);

  val result = val::object();
  result.set("q", to_js(r.q));
  result.set("k", to_js(r.k));
  result.set("v", to_js(r.v));
  result.set("scores", to_js(r.scores));
  result.set("scaled", to_js(r.scaled));
  result.set("weights", to_js(r.weights));
  result.set("output", to_js(r.output));
  return result;
}

}  // namespace

EMSCRIPTEN_BINDINGS(attention) { emscripten::function("compute", &compute); }
