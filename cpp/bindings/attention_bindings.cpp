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
// head >= 0: the matrix is that head's operand (messages say "heads[1].wq").
attn::Error to_matrix(const std::string& name, const val& packed, attn::Matrix* out,
                      int head = -1) {
  const auto values = emscripten::convertJSArrayToNumberVector<double>(packed["values"]);
  const auto lengths = emscripten::convertJSArrayToNumberVector<int>(packed["rowLengths"]);
  return attn::matrix_from_rows(name, values.data(), lengths.data(),
                                static_cast<int>(lengths.size()), out, head);
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

// Bytes → Uint8Array, a copy.
val to_js(const std::vector<unsigned char>& flags) {
  return val::global("Uint8Array").new_(emscripten::typed_memory_view(flags.size(), flags.data()));
}

val error_to_js(const attn::Error& err) {
  val obj = val::object();
  obj.set("code", std::string(attn::error_code_name(err.code)));
  obj.set("operand", err.operand);
  obj.set("row", err.row);
  obj.set("column", err.column);
  obj.set("head", err.head);
  obj.set("message", err.message);
  val result = val::object();
  result.set("error", obj);
  return result;
}

// operands (built by engine_api.js, every field present):
//   {x, context?, heads: [{wq, wk, wv}], wo?, singleHeadNames, causal,
//    keyPadding?: Uint8Array, scaleBySqrtDk, temperature, positionalEncoding}
// matrices packed as above. Returns {heads: [{q, k, v, scores, scaled, weights, output}],
// concat, output, masked: {rows, cols, data: Uint8Array}, fullyMasked: Uint8Array,
// pe?, xWithPe?, contextPe?, contextWithPe?} or {error}.
val compute(const val& operands) {
  attn::MultiHeadInput in;
  in.single_head_names = operands["singleHeadNames"].as<bool>();
  attn::Error err = to_matrix("x", operands["x"], &in.x);
  if (!err.ok()) return error_to_js(err);
  if (!operands["context"].isUndefined()) {
    err = to_matrix("context", operands["context"], &in.context);
    if (!err.ok()) return error_to_js(err);
  }
  const val heads = operands["heads"];
  const int n_heads = heads["length"].as<int>();
  for (int h = 0; h < n_heads; h++) {
    attn::Head w;
    const std::pair<const char*, attn::Matrix*> weights[] = {
        {"wq", &w.wq}, {"wk", &w.wk}, {"wv", &w.wv}};
    for (const auto& [name, matrix] : weights) {
      err = to_matrix(name, heads[h][name], matrix, in.single_head_names ? -1 : h);
      if (!err.ok()) return error_to_js(err);
    }
    in.heads.push_back(std::move(w));
  }
  if (!operands["wo"].isUndefined()) {
    err = to_matrix("wo", operands["wo"], &in.wo);
    if (!err.ok()) return error_to_js(err);
  }
  in.options.causal = operands["causal"].as<bool>();
  if (!operands["keyPadding"].isUndefined()) {
    for (int p : emscripten::convertJSArrayToNumberVector<int>(operands["keyPadding"])) {
      in.options.key_padding.push_back(p != 0);
    }
  }
  in.options.scale_by_sqrt_dk = operands["scaleBySqrtDk"].as<bool>();
  in.options.temperature = operands["temperature"].as<double>();
  in.options.positional_encoding = operands["positionalEncoding"].as<bool>();

  // One result kept for the module's lifetime: every recompute reuses its buffers instead of
  // allocating (and touching fresh pages for) n × n matrices again.
  static attn::MultiHeadResult r;
  err = attn::multi_head_attention(in, &r);
  if (!err.ok()) return error_to_js(err);

  val result = val::object();
  val heads_out = val::array();
  for (const attn::AttentionResult& h : r.heads) {
    val head = val::object();
    head.set("q", to_js(h.q));
    head.set("k", to_js(h.k));
    head.set("v", to_js(h.v));
    head.set("scores", to_js(h.scores));
    head.set("scaled", to_js(h.scaled));
    head.set("weights", to_js(h.weights));
    head.set("output", to_js(h.output));
    heads_out.call<void>("push", head);
  }
  result.set("heads", heads_out);
  result.set("concat", to_js(r.concat));
  result.set("output", to_js(r.output));
  val masked = val::object();
  masked.set("rows", r.mask.n_q);
  masked.set("cols", r.mask.n_k);
  masked.set("data", to_js(r.mask.hidden));
  result.set("masked", masked);
  result.set("fullyMasked", to_js(r.mask.fully_masked));
  if (in.options.positional_encoding) {
    result.set("pe", to_js(r.pe));
    result.set("xWithPe", to_js(r.x_with_pe));
    if (in.context.rows > 0) {
      result.set("contextPe", to_js(r.context_pe));
      result.set("contextWithPe", to_js(r.context_with_pe));
    }
  }
  return result;
}

}  // namespace

EMSCRIPTEN_BINDINGS(attention) { emscripten::function("compute", &compute); }
