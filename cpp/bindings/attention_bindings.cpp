// embind layer: the only place that knows about Emscripten. It adapts typed arrays to
// attn::Matrix and back, and turns attn::Error into a plain object that the JS wrapper
// (cpp/bindings/engine.js) throws as an Error. Raw bindings stay private to that wrapper.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "attention.h"
#include "backward.h"
#include "model.h"
#include "training.h"

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
val to_js(const attn::Matrix& m, bool live = false) {
  val obj = val::object();
  obj.set("rows", m.rows);
  obj.set("cols", m.cols);
  obj.set("data", copy_or_view("Float64Array", m.data.size(), m.data.data(), live));
  return obj;
}

// Bytes → Uint8Array: a copy unless `live`.
val to_js(const std::vector<unsigned char>& flags, bool live = false) {
  return copy_or_view("Uint8Array", flags.size(), flags.data(), live);
}

val error_to_js(const attn::Error& err) {
  val obj = val::object();
  obj.set("code", std::string(attn::error_code_name(err.code)));
  obj.set("operand", err.operand);
  obj.set("row", err.row);
  obj.set("column", err.column);
  obj.set("head", err.head);
  obj.set("layer", err.layer);
  if (!err.path.empty()) obj.set("path", err.path);
  obj.set("message", err.message);
  val result = val::object();
  result.set("error", obj);
  return result;
}

// One set of buffers kept for the module's lifetime, shared by compute(), backward() and
// train(): every call reuses them instead of allocating (and touching fresh pages for) n × n
// matrices again, and the forward pass's buffers exist once, whichever call ran last.
attn::Workspace& workspace() {
  static attn::Workspace w;
  return w;
}

// operands (built by validate.js packInput, every field present):
//   {x, context?, heads: [{wq, wk, wv}], wo?, singleHeadNames, causal,
//    keyPadding?: Uint8Array, scaleBySqrtDk, temperature, positionalEncoding, alibi}
// matrices packed as above.
attn::Error read_input(const val& operands, attn::MultiHeadInput* in) {
  in->single_head_names = operands["singleHeadNames"].as<bool>();
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
      err = to_matrix(name, heads[h][name], matrix, in->single_head_names ? -1 : h);
      if (!err.ok()) return err;
    }
    in->heads.push_back(std::move(w));
  }
  if (!operands["wo"].isUndefined()) {
    err = to_matrix("wo", operands["wo"], &in->wo);
    if (!err.ok()) return err;
  }
  in->options.causal = operands["causal"].as<bool>();
  if (!operands["keyPadding"].isUndefined()) {
    for (int p : emscripten::convertJSArrayToNumberVector<int>(operands["keyPadding"])) {
      in->options.key_padding.push_back(p != 0);
    }
  }
  in->options.scale_by_sqrt_dk = operands["scaleBySqrtDk"].as<bool>();
  in->options.temperature = operands["temperature"].as<double>();
  in->options.positional_encoding = operands["positionalEncoding"].as<bool>();
  in->options.alibi = operands["alibi"].as<bool>();
  return attn::Error{};
}

// {heads: [{wq, wk, wv}], x, context?, wo?} of `in`, matrices as {rows, cols, data}: the
// input's structure, for its gradient (backward) or its trained values (train).
val input_to_js(const attn::Matrix& x, const attn::Matrix& context,
                const std::vector<attn::Head>& heads, const attn::Matrix& wo) {
  val out = val::object();
  out.set("x", to_js(x));
  if (context.rows > 0) out.set("context", to_js(context));
  val heads_out = val::array();
  for (const attn::Head& h : heads) {
    val head = val::object();
    head.set("wq", to_js(h.wq));
    head.set("wk", to_js(h.wk));
    head.set("wv", to_js(h.wv));
    heads_out.call<void>("push", head);
  }
  out.set("heads", heads_out);
  if (wo.rows > 0) out.set("wo", to_js(wo));
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
  if (!err.ok()) return error_to_js(err);

  attn::MultiHeadResult& r = workspace().forward;
  err = attn::multi_head_attention(in, &r);
  if (!err.ok()) return error_to_js(err);

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
  val input = input_to_js(g.input.x, g.input.context, g.input.heads, g.input.wo);
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
attn::Error read_loss(const val& options, const attn::MultiHeadInput& in, attn::TrainOptions* o) {
  const bool on_weights = options["loss"].as<std::string>() == "weights";
  o->loss = on_weights ? attn::Loss::weights_cross_entropy : attn::Loss::output_mse;
  const val target = options["target"];
  if (!on_weights) return to_matrix("target", target, &o->target);
  const int n = target["length"].as<int>();
  o->target_weights.resize(n);  // 0 rows: a head left out of the loss
  for (int h = 0; h < n; h++) {
    if (target[h].isNull()) continue;
    // "target[1][0][2]" in the heads form, "target[0][2]" in the one-head form
    const std::string name = in.single_head_names ? "target" : "target[" + std::to_string(h) + "]";
    attn::Error err = to_matrix(name, target[h], &o->target_weights[h]);
    if (!err.ok()) {
      err.operand = "target";
      err.head = in.single_head_names ? -1 : h;
      return err;
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
  if (!err.ok()) return error_to_js(err);
  attn::Workspace& w = workspace();
  if (!seed["loss"].isUndefined()) {
    attn::TrainOptions o;
    err = read_loss(seed, in, &o);
    if (!err.ok()) return error_to_js(err);
    double loss = 0.0;
    err = attn::loss_backward(in, o, &loss, &w);
    if (!err.ok()) return error_to_js(err);
    val out = gradients_to_js(in, w.gradients);
    out.set("loss", loss);
    return out;
  }
  attn::Seed& s = w.seed;
  s.output = attn::Matrix{};
  s.weights.clear();
  if (!seed["output"].isUndefined()) {
    err = to_matrix("output", seed["output"], &s.output);
    if (!err.ok()) return error_to_js(err);
  }
  if (!seed["weights"].isUndefined()) {
    const val weights = seed["weights"];
    const int n = weights["length"].as<int>();
    s.weights.resize(n);  // 0 rows: a head the loss does not see
    for (int h = 0; h < n; h++) {
      if (weights[h].isNull()) continue;
      // "weights[1][0][2]" in the heads form, "weights[0][2]" in the one-head form
      const std::string name =
          in.single_head_names ? "weights" : "weights[" + std::to_string(h) + "]";
      err = to_matrix(name, weights[h], &s.weights[h]);
      if (!err.ok()) {
        err.operand = "weights";
        err.head = in.single_head_names ? -1 : h;
        return error_to_js(err);
      }
    }
  }
  err = attn::attention_backward(in, s, &w.forward, &w.gradients);
  if (!err.ok()) return error_to_js(err);
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
  if (!err.ok()) return error_to_js(err);
  attn::TrainOptions o;
  err = read_loss(options, in, &o);
  if (!err.ok()) return error_to_js(err);
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
  if (!err.ok()) return error_to_js(err);
  val result = val::object();
  result.set("input", input_to_js(out.x, out.context, out.heads, out.wo));
  result.set("losses", val::global("Float64Array")
                           .new_(emscripten::typed_memory_view(losses.size(), losses.data())));
  result.set("step", static_cast<double>(state.step));
  std::vector<double> moments = state.m;
  moments.insert(moments.end(), state.v.begin(), state.v.end());
  result.set("moments", val::global("Float64Array")
                            .new_(emscripten::typed_memory_view(moments.size(), moments.data())));
  return result;
}

// ---- models (model.h) ----

// A packed matrix or vector of the model at `path` ("layers[1].heads[0].wq"); errors carry the
// path, its last name as the operand, the layer and the head.
attn::Error model_matrix(const val& packed, const std::string& path, int layer, int head,
                         attn::Matrix* out) {
  attn::Error err = to_matrix(path, packed, out);
  if (!err.ok()) {
    err.path = path;
    err.operand = path.substr(path.rfind('.') == std::string::npos ? 0 : path.rfind('.') + 1);
    err.layer = layer;
    err.head = head;
  }
  return err;
}

// An optional vector (a Float64Array, or undefined: absent).
attn::Error model_vector(const val& parent, const char* name, const std::string& path, int layer,
                         int head, std::vector<double>* out) {
  out->clear();
  const val v = parent[name];
  if (v.isUndefined()) return attn::Error{};
  const auto values = emscripten::convertJSArrayToNumberVector<double>(v);
  return attn::vector_from_values(path, name, layer, head, values.data(),
                                  static_cast<int>(values.size()), out);
}

attn::Error model_norm(const val& parent, const char* name, const std::string& path, int layer,
                       attn::Norm* out) {
  *out = attn::Norm{};
  const val norm = parent[name];
  if (norm.isUndefined()) return attn::Error{};
  attn::Error err = model_vector(norm, "gain", path + ".gain", layer, -1, &out->gain);
  if (err.ok()) err = model_vector(norm, "bias", path + ".bias", layer, -1, &out->bias);
  return err;
}

// packed (built by validate-model.js packModel, its types already checked): {vocab (a count),
// dModel, maxTokens, causal, embed, positions? (absent: sinusoidal), layers: [{norm1?, heads:
// [{wq, wk, wv, bq?, bk?, bv?}], wo, bo?, norm2?, mlp?: {w1, b1?, w2, b2?, activation}}],
// finalNorm?: {gain, bias}, unembed? (absent: tied), unembedBias?}; matrices packed as to_matrix()
// reads them, vectors Float64Arrays. Then check_model().
attn::Error read_model(const val& packed, attn::Model* m) {
  m->vocab = packed["vocab"].as<int>();
  m->d_model = packed["dModel"].as<int>();
  m->max_tokens = packed["maxTokens"].as<int>();
  m->causal = packed["causal"].as<bool>();
  attn::Error err = model_matrix(packed["embed"], "embed", -1, -1, &m->embed);
  if (!err.ok()) return err;
  m->sinusoidal = packed["positions"].isUndefined();
  if (!m->sinusoidal) {
    err = model_matrix(packed["positions"], "positions", -1, -1, &m->positions);
    if (!err.ok()) return err;
  }
  const val layers = packed["layers"];
  const int n_layers = layers["length"].as<int>();
  if (!(err = attn::check_layer_count(n_layers)).ok()) return err;  // before reading them
  m->layers.resize(n_layers);
  for (int l = 0; l < n_layers; l++) {
    const val layer = layers[l];
    attn::Layer& w = m->layers[l];
    const std::string lp = attn::layer_path(l);
    if (!(err = model_norm(layer, "norm1", lp + ".norm1", l, &w.norm1)).ok()) return err;
    const val heads = layer["heads"];
    const int n_heads = heads["length"].as<int>();
    if (!(err = attn::check_head_count(l, n_heads)).ok()) return err;
    w.heads.resize(n_heads);
    for (int h = 0; h < n_heads; h++) {
      const val head = heads[h];
      attn::Head& hw = w.heads[h];
      const std::string hp = attn::head_path(l, h);
      if (!(err = model_matrix(head["wq"], hp + ".wq", l, h, &hw.wq)).ok()) return err;
      if (!(err = model_matrix(head["wk"], hp + ".wk", l, h, &hw.wk)).ok()) return err;
      if (!(err = model_matrix(head["wv"], hp + ".wv", l, h, &hw.wv)).ok()) return err;
      if (!(err = model_vector(head, "bq", hp + ".bq", l, h, &hw.bq)).ok()) return err;
      if (!(err = model_vector(head, "bk", hp + ".bk", l, h, &hw.bk)).ok()) return err;
      if (!(err = model_vector(head, "bv", hp + ".bv", l, h, &hw.bv)).ok()) return err;
    }
    if (!(err = model_matrix(layer["wo"], lp + ".wo", l, -1, &w.wo)).ok()) return err;
    if (!(err = model_vector(layer, "bo", lp + ".bo", l, -1, &w.bo)).ok()) return err;
    if (!(err = model_norm(layer, "norm2", lp + ".norm2", l, &w.norm2)).ok()) return err;
    const val mlp = layer["mlp"];
    w.has_mlp = !mlp.isUndefined();
    if (!w.has_mlp) continue;
    if (!(err = model_matrix(mlp["w1"], lp + ".mlp.w1", l, -1, &w.mlp.w1)).ok()) return err;
    if (!(err = model_vector(mlp, "b1", lp + ".mlp.b1", l, -1, &w.mlp.b1)).ok()) return err;
    if (!(err = model_matrix(mlp["w2"], lp + ".mlp.w2", l, -1, &w.mlp.w2)).ok()) return err;
    if (!(err = model_vector(mlp, "b2", lp + ".mlp.b2", l, -1, &w.mlp.b2)).ok()) return err;
    w.mlp.activation = mlp["activation"].as<std::string>() == "relu" ? attn::Activation::relu
                                                                     : attn::Activation::gelu;
  }
  if (!(err = model_norm(packed, "finalNorm", "finalNorm", -1, &m->final_norm)).ok()) return err;
  m->tied = packed["unembed"].isUndefined();
  if (!m->tied) {
    err = model_matrix(packed["unembed"], "unembed", -1, -1, &m->unembed);
    if (!err.ok()) return err;
  }
  err = model_vector(packed, "unembedBias", "unembedBias", -1, -1, &m->unembed_bias);
  if (!err.ok()) return err;
  return attn::check_model(*m);
}

// ids (a Float64Array) of `m`, named `name` ("ids", "batches[2].targets").
attn::Error read_ids(const attn::Model& m, const val& values, const std::string& name, bool targets,
                     std::vector<int>* out) {
  const auto v = emscripten::convertJSArrayToNumberVector<double>(values);
  return attn::ids_from_values(m, name, v.data(), static_cast<int>(v.size()), targets, out);
}

// Float64Array copy (or view, when live) of a vector.
val vector_to_js(const std::vector<double>& v, bool live = false) {
  return copy_or_view("Float64Array", v.size(), v.data(), live);
}

// A model's arrays in the format's structure (matrices {rows, cols, data}, vectors
// Float64Arrays; absent arrays left out): its gradients or its trained parameters.
val model_to_js(const attn::Model& m) {
  val out = val::object();
  out.set("embed", to_js(m.embed));
  if (!m.sinusoidal) out.set("positions", to_js(m.positions));
  auto set_vector = [](val& obj, const char* name, const std::vector<double>& v) {
    if (!v.empty()) obj.set(name, vector_to_js(v));
  };
  auto set_norm = [](val& obj, const char* name, const attn::Norm& n) {
    if (!n.present()) return;
    val norm = val::object();
    norm.set("gain", vector_to_js(n.gain));
    norm.set("bias", vector_to_js(n.bias));
    obj.set(name, norm);
  };
  val layers = val::array();
  for (const attn::Layer& w : m.layers) {
    val layer = val::object();
    set_norm(layer, "norm1", w.norm1);
    val heads = val::array();
    for (const attn::Head& h : w.heads) {
      val head = val::object();
      head.set("wq", to_js(h.wq));
      head.set("wk", to_js(h.wk));
      head.set("wv", to_js(h.wv));
      set_vector(head, "bq", h.bq);
      set_vector(head, "bk", h.bk);
      set_vector(head, "bv", h.bv);
      heads.call<void>("push", head);
    }
    layer.set("heads", heads);
    layer.set("wo", to_js(w.wo));
    set_vector(layer, "bo", w.bo);
    if (w.has_mlp) {
      set_norm(layer, "norm2", w.norm2);
      val mlp = val::object();
      mlp.set("w1", to_js(w.mlp.w1));
      set_vector(mlp, "b1", w.mlp.b1);
      mlp.set("w2", to_js(w.mlp.w2));
      set_vector(mlp, "b2", w.mlp.b2);
      layer.set("mlp", mlp);
    }
    layers.call<void>("push", layer);
  }
  out.set("layers", layers);
  set_norm(out, "finalNorm", m.final_norm);
  if (!m.tied) out.set("unembed", to_js(m.unembed));
  set_vector(out, "unembedBias", m.unembed_bias);
  return out;
}

// Models read once (loadModel) and kept by id until released (releaseModel): runModel,
// modelGradients and trainModel take such an id in place of a packed model and skip reading it.
std::unordered_map<int, attn::Model>& loaded_models() {
  static std::unordered_map<int, attn::Model> models;
  return models;
}

// Keeps `m` as a loaded model; returns its id.
int keep_model(attn::Model&& m) {
  static int next_id = 0;
  loaded_models().emplace(++next_id, std::move(m));
  return next_id;
}

// `model`: a packed model, read into `*read`, or a loaded model's id. Points `*m` at the model.
attn::Error resolve_model(const val& model, attn::Model* read, const attn::Model** m) {
  if (!model.isNumber()) {
    *m = read;
    return read_model(model, read);
  }
  const auto found = loaded_models().find(model.as<int>());
  if (found == loaded_models().end()) {  // the JS wrapper passes only ids it has not released
    return attn::make_error(attn::ErrorCode::conflict, "model", "this model is not loaded");
  }
  *m = &found->second;
  return attn::Error{};
}

// packed as read_model() reads it. Returns {id} or {error}.
val load_model(const val& packed) {
  attn::Model m;
  attn::Error err = read_model(packed, &m);
  if (!err.ok()) return error_to_js(err);
  val result = val::object();
  result.set("id", keep_model(std::move(m)));
  return result;
}

void release_model(int id) { loaded_models().erase(id); }

// A loaded model's parameters (model_to_js).
val model_parameters(int id) { return model_to_js(loaded_models().at(id)); }

// The last forward pass of a model.
attn::ModelRun& model_run() {
  static attn::ModelRun run;
  return run;
}

// A forward pass's matrices in one block, so that they cross into JS as one copy (or, with
// reuse, one view) instead of ~150 objects of a few embind calls each. values: each matrix's
// values (row-major) one after another; shapes: the number of layers L, then per layer its
// number of heads and 1 if it has an MLP (else 0), then (rows, cols) of each matrix, in this
// order: residual x₀ … x_L; per layer its input, per head q, k, v, scores, scaled, weights,
// output, then concat and the attention's output, with an MLP its input, hidden, activated and
// output; finalInput, logits, probabilities. engine.js (unpackRun) reads it in that order.
// Kept for the module's lifetime: runModel(…, {reuse: true})'s views show it.
struct PackedRun {
  std::vector<double> values;
  std::vector<int> shapes;
};

PackedRun& packed_run() {
  static PackedRun packed;
  return packed;
}

void pack_run(const attn::Model& m, const attn::ModelRun& run, PackedRun* p) {
  std::vector<const attn::Matrix*> order;  // the matrices in PackedRun's order
  p->shapes.clear();
  p->shapes.push_back(static_cast<int>(run.layers.size()));
  for (size_t l = 0; l < run.layers.size(); l++) {
    p->shapes.push_back(static_cast<int>(run.layers[l].attention.heads.size()));
    p->shapes.push_back(m.layers[l].has_mlp ? 1 : 0);
  }
  for (const attn::Matrix& x : run.residual) order.push_back(&x);
  for (size_t l = 0; l < run.layers.size(); l++) {
    const attn::LayerRun& r = run.layers[l];
    order.push_back(&r.attention_input.x);
    for (const attn::AttentionResult& h : r.attention.heads) {
      order.insert(order.end(), {&h.q, &h.k, &h.v, &h.scores, &h.scaled, &h.weights, &h.output});
    }
    order.insert(order.end(), {&r.attention.concat, &r.attention_output});
    if (m.layers[l].has_mlp) {
      order.insert(order.end(), {&r.mlp_input, &r.hidden, &r.activated, &r.mlp_output});
    }
  }
  order.insert(order.end(), {&run.final_input, &run.logits, &run.probabilities});
  size_t total = 0;
  for (const attn::Matrix* x : order) total += x->data.size();
  p->values.resize(total);  // keeps its capacity: the same memory from call to call
  double* at = p->values.data();
  for (const attn::Matrix* x : order) {
    p->shapes.push_back(x->rows);
    p->shapes.push_back(x->cols);
    at = std::copy(x->data.begin(), x->data.end(), at);
  }
}

// model: packed as read_model() reads it, or a loaded model's id; ids a Float64Array, headsOff:
// [Uint8Array per layer] or undefined. Returns {values: Float64Array, shapes: Int32Array} (the
// run packed as PackedRun says; values a copy, or when live a view valid until the next call,
// as compute()'s) or {error}.
val run_model(const val& model, const val& ids, const val& heads_off, bool live) {
  attn::Model from_js;
  const attn::Model* model_ptr = nullptr;
  attn::Error err = resolve_model(model, &from_js, &model_ptr);
  if (!err.ok()) return error_to_js(err);
  const attn::Model& m = *model_ptr;
  std::vector<int> token_ids;
  if (!(err = read_ids(m, ids, "ids", false, &token_ids)).ok()) return error_to_js(err);
  attn::RunOptions options;
  if (!heads_off.isUndefined()) {
    const int n = heads_off["length"].as<int>();
    for (int l = 0; l < n; l++) {
      options.heads_off.push_back(
          emscripten::convertJSArrayToNumberVector<unsigned char>(heads_off[l]));
    }
  }
  attn::ModelRun& run = model_run();
  err = attn::run_model(m, token_ids, options, &run);
  if (!err.ok()) return error_to_js(err);

  PackedRun& packed = packed_run();
  pack_run(m, run, &packed);
  val result = val::object();
  result.set("values", vector_to_js(packed.values, live));
  result.set("shapes",
             copy_or_view("Int32Array", packed.shapes.size(), packed.shapes.data(), false));
  return result;
}

// model as for run_model(). Returns {loss, gradients (model_to_js)} or {error}.
val model_gradients(const val& model, const val& ids, const val& targets) {
  attn::Model from_js;
  const attn::Model* model_ptr = nullptr;
  attn::Error err = resolve_model(model, &from_js, &model_ptr);
  if (!err.ok()) return error_to_js(err);
  const attn::Model& m = *model_ptr;
  std::vector<int> token_ids, token_targets;
  if (!(err = read_ids(m, ids, "ids", false, &token_ids)).ok()) return error_to_js(err);
  err = read_ids(m, targets, "targets", true, &token_targets);
  if (!err.ok()) return error_to_js(err);
  attn::Model g;
  double loss = 0.0;
  err = attn::model_gradients(m, token_ids, token_targets, {}, &model_run(), &loss, &g);
  if (!err.ok()) return error_to_js(err);
  val result = val::object();
  result.set("loss", loss);
  result.set("gradients", model_to_js(g));
  return result;
}

// options (built by validate-model.js): {batches: [{ids, targets: Float64Array}], optimizer: 'sgd'
// | 'adam', learningRate}; model as for run_model(). Returns {parameters (model_to_js), losses:
// Float64Array} or, for a loaded model, {id (the trained model, loaded), losses}; or {error}.
val train_model(const val& model, const val& options) {
  attn::Model from_js;
  const attn::Model* model_ptr = nullptr;
  attn::Error err = resolve_model(model, &from_js, &model_ptr);
  if (!err.ok()) return error_to_js(err);
  const attn::Model& m = *model_ptr;
  const val batches = options["batches"];
  const int n = batches["length"].as<int>();
  if (!(err = attn::check_batch_count(n)).ok()) return error_to_js(err);  // before reading them
  std::vector<attn::Batch> read(n);
  for (int b = 0; b < n; b++) {
    const std::string p = "batches[" + std::to_string(b) + "].";
    if (!(err = read_ids(m, batches[b]["ids"], p + "ids", false, &read[b].ids)).ok()) {
      return error_to_js(err);
    }
    err = read_ids(m, batches[b]["targets"], p + "targets", true, &read[b].targets);
    if (!err.ok()) return error_to_js(err);
  }
  attn::ModelTrainOptions o;
  o.optimizer = options["optimizer"].as<std::string>() == "sgd" ? attn::Optimizer::sgd
                                                                : attn::Optimizer::adam;
  o.learning_rate = options["learningRate"].as<double>();
  attn::Model trained;
  std::vector<double> losses;
  err = attn::train_model(m, read, o, &trained, &losses);
  if (!err.ok()) return error_to_js(err);
  val result = val::object();
  result.set("losses", vector_to_js(losses));
  if (model.isNumber()) {
    result.set("id", keep_model(std::move(trained)));
  } else {
    result.set("parameters", model_to_js(trained));
  }
  return result;
}

}  // namespace

EMSCRIPTEN_BINDINGS(attention) {
  emscripten::function("compute", &compute);
  emscripten::function("backward", &backward);
  emscripten::function("train", &train);
  emscripten::function("runModel", &run_model);
  emscripten::function("modelGradients", &model_gradients);
  emscripten::function("trainModel", &train_model);
  emscripten::function("loadModel", &load_model);
  emscripten::function("releaseModel", &release_model);
  emscripten::function("modelParameters", &model_parameters);
}
