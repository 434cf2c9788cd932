// libFuzzer target for the C++ that reads user data: matrix_from_rows (flat values + row
// lengths, as the bindings pass them) and multi_head_attention with every option. Whatever
// the bytes, the engine must either return an Error with a message, or finite results of the
// right shapes whose weight rows sum to 1 (0 for a fully masked row). Built with ASan and
// UBSan (scripts/test.mjs runs it for a bounded time on tests/fuzz/corpus).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "attention.h"

namespace {

// Reads the fuzzer's bytes front to back; past the end everything reads as 0.
struct Bytes {
  const uint8_t* data;
  size_t size;
  size_t pos = 0;

  uint8_t byte() { return pos < size ? data[pos++] : 0; }
  int small(int max) { return byte() % (max + 1); }  // 0 … max
  double value() {
    // mostly ordinary numbers; raw bit patterns (NaN, ±Inf, huge, subnormal) now and then
    const uint8_t kind = byte();
    if (kind < 200) return (static_cast<int>(byte()) - 128) / 16.0;
    uint64_t bits = 0;
    for (int i = 0; i < 8; i++) bits = bits << 8 | byte();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
};

void check(bool ok) {
  if (!ok) __builtin_trap();  // an invariant broke: libFuzzer reports the input
}

// A matrix read as rows of possibly different lengths, through the validating entry point.
attn::Error read_matrix(Bytes& in, const char* name, int rows, int cols, attn::Matrix* out) {
  std::vector<int> lengths(rows, cols);
  if (rows > 0 && in.small(15) == 0) lengths[in.small(rows - 1)] = in.small(cols + 1);  // ragged
  std::vector<double> values;
  for (int len : lengths)
    for (int j = 0; j < len; j++) values.push_back(in.value());
  attn::Error err = attn::matrix_from_rows(name, values.data(), lengths.data(), rows, out);
  check(err.ok() || !err.message.empty());
  return err;
}

void check_result(const attn::MultiHeadInput& in, const attn::MultiHeadResult& r) {
  const int n_q = in.x.rows;
  const int n_k = in.context.rows > 0 ? in.context.rows : n_q;
  check(static_cast<size_t>(r.heads.size()) == in.heads.size());
  for (const attn::AttentionResult& h : r.heads) {
    check(h.weights.rows == n_q && h.weights.cols == n_k);
    for (int i = 0; i < n_q; i++) {
      double sum = 0.0;
      for (int j = 0; j < n_k; j++) {
        const double w = h.weights.at(i, j);
        check(std::isfinite(w) && w >= 0.0 && w <= 1.0);
        check(!r.mask.at(i, j) || w == 0.0);  // masked keys get exactly 0
        sum += w;
      }
      check(r.mask.fully_masked[i] ? sum == 0.0 : std::fabs(sum - 1.0) < 1e-9);
    }
    for (double v : h.output.data) check(std::isfinite(v));
  }
  check(r.output.rows == n_q);
  for (double v : r.output.data) check(std::isfinite(v));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes b{data, size};
  const int n_q = b.small(12);  // 0 rows is a case too: "x is empty"
  const int d_model = 1 + b.small(7);
  const int n_heads = 1 + b.small(3);
  const int d_k = 1 + b.small(5);
  const int d_v = 1 + b.small(5);
  const uint8_t flags = b.byte();

  attn::MultiHeadInput in;
  if (!read_matrix(b, "x", n_q, d_model, &in.x).ok()) return 0;
  int d_source = d_model;
  if (flags & 1) {  // cross-attention
    const int n_k = 1 + b.small(12);
    d_source = 1 + b.small(7);
    if (!read_matrix(b, "context", n_k, d_source, &in.context).ok()) return 0;
  }
  for (int h = 0; h < n_heads; h++) {
    attn::Head w;
    // a wrong shape now and then, to reach the shape checks
    const int rows_q = (flags & 2) && h == n_heads - 1 ? d_model + 1 : d_model;
    if (!read_matrix(b, "wq", rows_q, d_k, &w.wq).ok()) return 0;
    if (!read_matrix(b, "wk", d_source, d_k, &w.wk).ok()) return 0;
    if (!read_matrix(b, "wv", d_source, d_v, &w.wv).ok()) return 0;
    in.heads.push_back(std::move(w));
  }
  if (flags & 4) {
    if (!read_matrix(b, "wo", n_heads * d_v, d_model, &in.wo).ok()) return 0;
  }
  in.options.causal = flags & 8;
  if (flags & 16) {
    const int n_k = in.context.rows > 0 ? in.context.rows : n_q;
    for (int j = 0; j < n_k + (flags & 128 ? 1 : 0); j++)
      in.options.key_padding.push_back(b.byte() & 1);
  }
  in.options.scale_by_sqrt_dk = !(flags & 32);
  in.options.positional_encoding = flags & 64;
  in.options.temperature = b.small(3) == 0 ? b.value() : 1.0;

  attn::MultiHeadResult r;
  const attn::Error err = attn::multi_head_attention(in, &r);
  if (err.ok()) {
    check_result(in, r);
  } else {
    check(!err.message.empty());
  }
  return 0;
}
