#include "convert.h"

#include "attention.h"

namespace bindings {

// {values: Float64Array, rowLengths: Int32Array} → Matrix, each array copied in one block.
// head >= 0: the matrix is that head's operand (messages say "heads[1].wq").
attn::Error to_matrix(const std::string& name, const val& packed, attn::Matrix* out, int head) {
  const auto values = emscripten::convertJSArrayToNumberVector<double>(packed["values"]);
  const auto lengths = emscripten::convertJSArrayToNumberVector<int>(packed["rowLengths"]);
  return attn::matrix_from_rows(name, values.data(), lengths.data(),
                                static_cast<int>(lengths.size()), out, head);
}

// Matrix → {rows, cols, data: Float64Array}: a copy unless `live` (above).
val to_js(const attn::Matrix& m, bool live) {
  val obj = val::object();
  obj.set("rows", m.rows);
  obj.set("cols", m.cols);
  obj.set("data", copy_or_view("Float64Array", m.data.size(), m.data.data(), live));
  return obj;
}

// Bytes → Uint8Array: a copy unless `live`.
val to_js(const std::vector<unsigned char>& flags, bool live) {
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

// Float64Array copy (or view, when live) of a vector.
val vector_to_js(const std::vector<double>& v, bool live) {
  return copy_or_view("Float64Array", v.size(), v.data(), live);
}

}  // namespace bindings
