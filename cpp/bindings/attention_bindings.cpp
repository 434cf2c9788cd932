// The embind layer of the attention calls (compute, backward, train); the models' calls are in
// model_bindings.cpp and what both share in convert.h. The only place besides those that knows
// about Emscripten. It adapts typed arrays to attn::Matrix and back, and turns attn::Error into
// a plain object that the JS wrapper (cpp/bindings/engine.js) throws as an Error. Raw bindings
// stay private to that wrapper.
#include <emscripten/bind.h>

#include <string>
#include <vector>

#include "attention.h"
#include "backward.h"
#include "convert.h"
#include "training.h"

using namespace bindings;

namespace {

// One set of buffers kept for the module's lifetime, shared by compute(), backward() and
// train(): every call reuses them instead of allocating (and touching fresh pages for) n × n
// matrices again, and the forward pass's buffers exist once, whichever call ran last.
attn::Workspace& workspace() {
  static attn::Workspace w;
  return w;
}

// {error} of err, named as the operands' form names its heads: singleHeadNames (compute()'s
// one-head form) says "wq", "weights" and head -1; the heads form "heads[1].wq", "weights[1]".
val fail(const attn::Error& err, const val& operands) {
  return error_to_js(operands["singleHeadNames"].as<bool>() ? attn::one_head_form(err) : err);
}

// compute()'s options besides its matrices, declared once: each one's JS key, its kind and the
// field of attn::AttentionOptions it sets (its default: AttentionOptions{}'s). read_input()
// reads them by this table; validate.js checks, fills and lists them from it
// (attentionOptions()), so a new option is a field of the core and a line here.
//   boolean: true | false;  positive: a number (> 0, checked by the core);
//   perKey: true/false per key, packed as a Uint8Array, absent by default
struct OptionField {
  const char* key;
  const char* kind;
  bool attn::AttentionOptions::*boolean;               // kind boolean
  double attn::AttentionOptions::*number;              // kind positive
  std::vector<bool> attn::AttentionOptions::*per_key;  // kind perKey
};
using Options = attn::AttentionOptions;
const OptionField kOptions[] = {
    {"causal", "boolean", &Options::causal, nullptr, nullptr},
    {"keyPadding", "perKey", nullptr, nullptr, &Options::key_padding},
    {"scaleBySqrtDk", "boolean", &Options::scale_by_sqrt_dk, nullptr, nullptr},
    {"temperature", "positive", nullptr, &Options::temperature, nullptr},
    {"positionalEncoding", "boolean", &Options::positional_encoding, nullptr, nullptr},
    {"alibi", "boolean", &Options::alibi, nullptr, nullptr},
};

// [{key, kind, default}] of kOptions, in its order (perKey options have no default).
val attention_options() {
  const Options defaults;
  val out = val::array();
  for (const OptionField& f : kOptions) {
    val option = val::object();
    option.set("key", std::string(f.key));
    option.set("kind", std::string(f.kind));
    if (f.boolean != nullptr) option.set("default", defaults.*f.boolean);
    if (f.number != nullptr) option.set("default", defaults.*f.number);
    out.call<void>("push", option);
  }
  return out;
}

// operands (built by validate.js packInput, every field present):
//   {x, context?, heads: [{wq, wk, wv, bq?, bk?, bv?}], wo?, bo?, singleHeadNames, and every
//    option of kOptions (a perKey option undefined when absent)}
// matrices packed as above, biases as Float64Arrays (their values checked by validate.js).
attn::Error read_input(const val& operands, attn::MultiHeadInput* in) {
  attn::Error err = to_matrix("x", operands["x"], &in->x);
  if (!err.ok()) return err;
  if (!operands["context"].isUndefined()) {
    err = to_matrix("context", operands["context"], &in->context);
    if (!err.ok()) return err;
  }
  const val heads = operands["heads"];
  const int n_heads = heads["length"].as<int>();
  for (int h = 0; h < n_heads; h++) {
    attn::Head w;
    const std::pair<const char*, attn::Matrix*> weights[] = {
        {"wq", &w.wq}, {"wk", &w.wk}, {"wv", &w.wv}};
    for (const auto& [name, matrix] : weights) {
      err = to_matrix(name, heads[h][name], matrix, h);
      if (!err.ok()) return err;
    }
    const std::pair<const char*, std::vector<double>*> biases[] = {
        {"bq", &w.bq}, {"bk", &w.bk}, {"bv", &w.bv}};
    for (const auto& [name, bias] : biases) {
      const val b = heads[h][name];
      if (!b.isUndefined()) *bias = emscripten::convertJSArrayToNumberVector<double>(b);
    }
    in->heads.push_back(std::move(w));
  }
  if (!operands["wo"].isUndefined()) {
    err = to_matrix("wo", operands["wo"], &in->wo);
    if (!err.ok()) return err;
  }
  if (!operands["bo"].isUndefined()) {
    in->bo = emscripten::convertJSArrayToNumberVector<double>(operands["bo"]);
  }
  for (const OptionField& f : kOptions) {
    const val value = operands[f.key];
    if (f.boolean != nullptr) in->options.*f.boolean = value.as<bool>();
    if (f.number != nullptr) in->options.*f.number = value.as<double>();
    if (f.per_key != nullptr && !value.isUndefined()) {
      for (int p : emscripten::convertJSArrayToNumberVector<int>(value)) {
        (in->options.*f.per_key).push_back(p != 0);
      }
    }
  }
  return attn::Error{};
}

// {heads: [{wq, wk, wv, bq?, bk?, bv?}], x, context?, wo?, bo?} of `in`, matrices as {rows, cols,
// data}, biases (where given) as Float64Arrays: the input's structure, for its gradient
// (backward) or its trained values (train).
val input_to_js(const attn::Matrix& x, const attn::Matrix& context,
                const std::vector<attn::Head>& heads, const attn::Matrix& wo,
                const std::vector<double>& bo) {
  val out = val::object();
  out.set("x", to_js(x));
  if (context.rows > 0) out.set("context", to_js(context));
  val heads_out = val::array();
  for (const attn::Head& h : heads) {
    val head = val::object();
    head.set("wq", to_js(h.wq));
    head.set("wk", to_js(h.wk));
    head.set("wv", to_js(h.wv));
    if (!h.bq.empty()) head.set("bq", vector_to_js(h.bq));
    if (!h.bk.empty()) head.set("bk", vector_to_js(h.bk));
    if (!h.bv.empty()) head.set("bv", vector_to_js(h.bv));
    heads_out.call<void>("push", head);
  }
  out.set("heads", heads_out);
  if (wo.rows > 0) out.set("wo", to_js(wo));
  if (!bo.empty()) out.set("bo", vector_to_js(bo));
  return out;
}

// Each head's {q, k, v, scores, scaled, weights, output, bias?}; copies unless `live` (to_js).
val heads_to_js(const std::vector<attn::AttentionResult>& heads, bool live = false) {
  val out = val::array();
  for (const attn::AttentionResult& h : heads) {
    val head = val::object();
    head.set("q", to_js(h.q, live));
    head.set("k", to_js(h.k, live));
    head.set("v", to_js(h.v, live));
    head.set("scores", to_js(h.scores, live));
    head.set("scaled", to_js(h.scaled, live));
    head.set("weights", to_js(h.weights, live));
    head.set("output", to_js(h.output, live));
    if (h.bias.rows > 0) head.set("bias", to_js(h.bias, live));  // with alibi
    out.call<void>("push", head);
  }
  return out;
}

// operands as read_input() reads them. Returns {heads: [{q, k, v, scores, scaled, weights,
// output}], concat, output, masked?: {rows, cols, data: Uint8Array}, fullyMasked?: Uint8Array
// (with causal or keyPadding), pe?, xWithPe?, contextPe?, contextWithPe?} or {error}.
// live: every array a view of the workspace instead of a copy (to_js).
val compute(const val& operands, bool live) {
  attn::MultiHeadInput in;
  attn::Error err = read_input(operands, &in);
  if (!err.ok()) return fail(err, operands);

  attn::MultiHeadResult& r = workspace().forward;
  err = attn::multi_head_attention(in, &r);
  if (!err.ok()) return fail(err, operands);

  val result = val::object();
  result.set("heads", heads_to_js(r.heads, live));
  result.set("concat", to_js(r.concat, live));
  result.set("output", to_js(r.output, live));
  if (in.options.causal || !in.options.key_padding.empty()) {  // else nothing is masked
    val masked = val::object();
    masked.set("rows", r.mask.n_q);
    masked.set("cols", r.mask.n_k);
    masked.set("data", to_js(r.mask.hidden, live));
    result.set("masked", masked);
    result.set("fullyMasked", to_js(r.mask.fully_masked, live));
  }
  if (in.options.positional_encoding) {
    result.set("pe", to_js(r.pe, live));
    result.set("xWithPe", to_js(r.x_with_pe, live));
    if (in.context.rows > 0) {
      result.set("contextPe", to_js(r.context_pe, live));
      result.set("contextWithPe", to_js(r.context_with_pe, live));
    }
  }
  return result;
}

// dL/d(every input matrix) and dL/d(every result matrix) in `g`, as backward() returns them.
val gradients_to_js(const attn::MultiHeadInput& in, const attn::Gradients& g) {
  val input = input_to_js(g.input.x, g.input.context, g.input.heads, g.input.wo, g.input.bo);
  input.set("temperature", g.input.temperature);
  val result = val::object();
  result.set("heads", heads_to_js(g.result.heads));
  result.set("concat", to_js(g.result.concat));
  result.set("output", to_js(g.result.output));
  if (in.options.positional_encoding) {
    result.set("xWithPe", to_js(g.result.x_with_pe));
    if (in.context.rows > 0) result.set("contextWithPe", to_js(g.result.context_with_pe));
  }
  val out = val::object();
  out.set("input", input);
  out.set("result", result);
  return out;
}

// options.loss and options.target (as train() takes them, below) into o.
attn::Error read_loss(const val& options, attn::TrainOptions* o) {
  const bool on_weights = options["loss"].as<std::string>() == "weights";
  o->loss = on_weights ? attn::Loss::weights_cross_entropy : attn::Loss::output_mse;
  const val target = options["target"];
  if (!on_weights) return to_matrix("target", target, &o->target);
  const int n = target["length"].as<int>();
  o->target_weights.resize(n);  // 0 rows: a head left out of the loss
  for (int h = 0; h < n; h++) {
    if (target[h].isNull()) continue;
    // "target[1][0][2]" in the heads form, "target[0][2]" in the one-head form
    attn::Error err = to_matrix(attn::indexed_label(h, "target"), target[h], &o->target_weights[h]);
    if (!err.ok()) {
      err.operand = "target";
      return err.in_head(h);
    }
  }
  return attn::Error{};
}

// operands as for compute(); seed (built by validate.js): {output?: packed matrix (dL/doutput),
// weights?: [packed | null] per head (dL/dweights)}, or {loss, target} as train() takes them.
// Returns {input: {x, context?, heads: [{wq, wk, wv}], wo?, temperature}, result: {heads: [{q, k,
// v, scores, scaled, weights, output}], concat, output, xWithPe?, contextWithPe?}, loss?}, every
// matrix the gradient of that matrix (loss: the loss's value, with {loss, target}), or {error}.
val backward(const val& operands, const val& seed) {
  attn::MultiHeadInput in;
  attn::Error err = read_input(operands, &in);
  if (!err.ok()) return fail(err, operands);
  attn::Workspace& w = workspace();
  if (!seed["loss"].isUndefined()) {
    attn::TrainOptions o;
    err = read_loss(seed, &o);
    if (!err.ok()) return fail(err, operands);
    double loss = 0.0;
    err = attn::loss_backward(in, o, &loss, &w);
    if (!err.ok()) return fail(err, operands);
    val out = gradients_to_js(in, w.gradients);
    out.set("loss", loss);
    return out;
  }
  attn::Seed& s = w.seed;
  s.output = attn::Matrix{};
  s.weights.clear();
  if (!seed["output"].isUndefined()) {
    err = to_matrix("output", seed["output"], &s.output);
    if (!err.ok()) return fail(err, operands);
  }
  if (!seed["weights"].isUndefined()) {
    const val weights = seed["weights"];
    const int n = weights["length"].as<int>();
    s.weights.resize(n);  // 0 rows: a head the loss does not see
    for (int h = 0; h < n; h++) {
      if (weights[h].isNull()) continue;
      // "weights[1][0][2]" in the heads form, "weights[0][2]" in the one-head form
      err = to_matrix(attn::indexed_label(h, "weights"), weights[h], &s.weights[h]);
      if (!err.ok()) {
        err.operand = "weights";
        return fail(err.in_head(h), operands);
      }
    }
  }
  err = attn::attention_backward(in, s, &w.forward, &w.gradients);
  if (!err.ok()) return fail(err, operands);
  return gradients_to_js(in, w.gradients);
}

// operands as for compute(); options (built by validate.js packTrainOptions, every field present):
//   {loss: 'output' | 'weights', target: packed matrix (output) or [packed | null] per head
//    (weights), train: {x, context, wq, wk, wv, wo: booleans}, optimizer: 'sgd' | 'adam',
//    learningRate, steps, seed, rowsPerStep (0: every row), step, moments?: Float64Array
//    (m then v, from a previous call)}
// Returns {input: {x, context?, heads: [{wq, wk, wv}], wo?} after training, losses:
// Float64Array, step, moments: Float64Array (m then v; empty for sgd)} or {error}.
val train(const val& operands, const val& options) {
  attn::MultiHeadInput in;
  attn::Error err = read_input(operands, &in);
  if (!err.ok()) return fail(err, operands);
  attn::TrainOptions o;
  err = read_loss(options, &o);
  if (!err.ok()) return fail(err, operands);
  const val trained = options["train"];
  o.trained.x = trained["x"].as<bool>();
  o.trained.context = trained["context"].as<bool>();
  o.trained.wq = trained["wq"].as<bool>();
  o.trained.wk = trained["wk"].as<bool>();
  o.trained.wv = trained["wv"].as<bool>();
  o.trained.wo = trained["wo"].as<bool>();
  o.optimizer = options["optimizer"].as<std::string>() == "adam" ? attn::Optimizer::adam
                                                                 : attn::Optimizer::sgd;
  o.learning_rate = options["learningRate"].as<double>();
  o.steps = static_cast<long long>(options["steps"].as<double>());  // a safe integer
  o.seed = options["seed"].as<uint32_t>();
  o.rows_per_step = static_cast<long long>(options["rowsPerStep"].as<double>());
  attn::TrainState state;
  state.step = static_cast<long long>(options["step"].as<double>());
  if (!options["moments"].isUndefined()) {
    const auto moments = emscripten::convertJSArrayToNumberVector<double>(options["moments"]);
    const size_t half = moments.size() / 2;
    state.m.assign(moments.begin(), moments.begin() + half);
    state.v.assign(moments.begin() + half, moments.end());
  }

  attn::MultiHeadInput out;
  std::vector<double> losses;
  err = attn::train(in, o, &state, &out, &losses, &workspace());
  if (!err.ok()) return fail(err, operands);
  val result = val::object();
  result.set("input", input_to_js(out.x, out.context, out.heads, out.wo, out.bo));
  result.set("losses", val::global("Float64Array")
                           .new_(emscripten::typed_memory_view(losses.size(), losses.data())));
  result.set("step", static_cast<double>(state.step));
  std::vector<double> moments = state.m;
  moments.insert(moments.end(), state.v.begin(), state.v.end());
  result.set("moments", val::global("Float64Array")
                            .new_(emscripten::typed_memory_view(moments.size(), moments.data())));
  return result;
}

}  // namespace

EMSCRIPTEN_BINDINGS(attention) {
  emscripten::function("attentionOptions", &attention_options);
  emscripten::function("compute", &compute);
  emscripten::function("backward", &backward);
  emscripten::function("train", &train);
}
