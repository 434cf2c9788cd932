// Multi-head attention, masks, temperature, scaling, positional encoding and cross-attention.
// Expected values come from numpy fixtures (tests/make_fixtures.py, variant_cases.txt) and from
// values derived by hand, never from the engine itself.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "attention.h"
#include "fixtures.h"
#include "multi_head_helpers.h"

using attn::ErrorCode;
using attn::Matrix;
using namespace multi_head_test;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;

namespace {

// Largest |a - b|; entries that are -Infinity in both (masked scores) count as equal.
double max_abs_diff(const Matrix& a, const Matrix& b) {
  REQUIRE(a.rows == b.rows);
  REQUIRE(a.cols == b.cols);
  double d = 0.0;
  for (size_t i = 0; i < a.data.size(); i++) {
    if (std::isinf(a.data[i]) || std::isinf(b.data[i])) {
      if (a.data[i] != b.data[i]) return kInf;
      continue;
    }
    d = std::max(d, std::fabs(a.data[i] - b.data[i]));
  }
  return d;
}

double max_abs(const Matrix& m) {
  double d = 0.0;
  for (double v : m.data) {
    if (std::isfinite(v)) d = std::max(d, std::fabs(v));
  }
  return d;
}

void check_close(const Matrix& got, const Rows& want, double tol) {
  const double diff = max_abs_diff(got, matrix(want));
  INFO("max |got - want| = " << diff);
  CHECK(diff <= tol);
}

Matrix mask_as_matrix(const attn::Mask& mask) {
  Matrix m(mask.n_q, mask.n_k);
  for (int i = 0; i < mask.n_q; i++)
    for (int j = 0; j < mask.n_k; j++) m.at(i, j) = mask.at(i, j) ? 1.0 : 0.0;
  return m;
}

Matrix flags_as_row(const std::vector<unsigned char>& flags) {
  Matrix m(1, static_cast<int>(flags.size()));
  for (size_t j = 0; j < flags.size(); j++) m.data[j] = flags[j] ? 1.0 : 0.0;
  return m;
}

// The option families a fixture case belongs to, for the worst-difference report: the
// keywords in its name.
std::vector<std::string> families(const std::string& name) {
  static const char* const keywords[] = {"heads",    "causal",     "padding",     "fully_masked",
                                         "cross",    "dk",         "temperature", "no_scaling",
                                         "unscaled", "pe",         "huge",        "scale",
                                         "tutorial", "everything", "alibi"};
  std::vector<std::string> found;
  for (const char* k : keywords) {
    const std::string word = k;
    size_t at = name.find(word);
    // a whole word between underscores, or followed by a number (heads2, dk64)
    while (at != std::string::npos) {
      const bool starts = at == 0 || name[at - 1] == '_';
      const size_t end = at + word.size();
      const bool ends = end == name.size() || name[end] == '_' || std::isdigit(name[end]);
      if (starts && ends) {
        found.push_back(word);
        break;
      }
      at = name.find(word, at + 1);
    }
  }
  if (name.find("all_padding") != std::string::npos) found.push_back("fully_masked");
  return found;
}

// Every result of every variant case against numpy; returns the worst scaled difference
// per family of cases.
std::map<std::string, double> compare_with_numpy() {
  const auto cases = load_fixture_cases(VARIANT_FIXTURE_FILE);
  REQUIRE(cases.size() >= 50);
  std::map<std::string, double> worst;
  for (const auto& c : cases) {
    INFO("case " << c.name);
    attn::MultiHeadResult r;
    attn::Error err = attn::multi_head_attention(multi_head_input(c), &r);
    INFO(err.message);
    REQUIRE(err.ok());
    std::map<std::string, const Matrix*> got = {{"concat", &r.concat}, {"output", &r.output}};
    for (size_t h = 0; h < r.heads.size(); h++) {
      const std::string p = "h" + std::to_string(h) + ".";
      const attn::AttentionResult& hr = r.heads[h];
      got[p + "q"] = &hr.q;
      got[p + "k"] = &hr.k;
      got[p + "v"] = &hr.v;
      got[p + "scores"] = &hr.scores;
      got[p + "scaled"] = &hr.scaled;
      got[p + "weights"] = &hr.weights;
      got[p + "output"] = &hr.output;
      if (c.options.count("alibi")) got[p + "bias"] = &hr.bias;  // −m_h·|i − j|
    }
    if (c.options.at("pe") != 0.0) {
      got["pe"] = &r.pe;
      got["xWithPe"] = &r.x_with_pe;
      if (c.matrices.count("context")) {
        got["contextPe"] = &r.context_pe;
        got["contextWithPe"] = &r.context_with_pe;
      }
    }
    const Matrix masked = mask_as_matrix(r.mask);
    const Matrix fully = flags_as_row(r.mask.fully_masked);
    got["masked"] = &masked;
    got["fullyMasked"] = &fully;

    // every numpy result is checked (except the inputs), and nothing is left unchecked
    size_t checked = 0;
    for (const auto& [name, want] : c.matrices) {
      const bool head_weight = name.size() > 3 && name[name.size() - 3] == '.' &&
                               name[name.size() - 2] == 'w';  // h0.wq, h0.wk, h0.wv
      if (name == "x" || name == "context" || name == "wo" || name == "keyPadding" || head_weight)
        continue;
      INFO(name);
      REQUIRE(got.count(name) == 1);
      // 1e-12 relative to the matrix's magnitude: numpy's BLAS sums in another order
      const double scale = std::max(1.0, max_abs(want));
      const double diff = max_abs_diff(*got.at(name), want);
      INFO("max |engine - numpy| = " << diff << ", scale " << scale);
      CHECK(diff <= 1e-12 * scale);
      for (const auto& f : families(c.name)) worst[f] = std::max(worst[f], diff / scale);
      checked++;
    }
    CHECK(checked == got.size());
  }
  return worst;
}

}  // namespace

TEST_CASE("every option and combination agrees with numpy", "[numpy][variants]") {
  compare_with_numpy();
}

// Not run by default: `attention_tests [report]` prints the worst difference per family.
TEST_CASE("report the worst difference from numpy per option family", "[.][report]") {
  for (const auto& [name, worst] : compare_with_numpy()) {
    std::printf("%-12s worst |engine - numpy| / magnitude = %.2g\n", name.c_str(), worst);
  }
}

TEST_CASE("one head without options is plain attention: every single-head numpy case",
          "[multi-head][numpy]") {
  // attention_cases.txt: the tutorial's numpy steps, without masks, heads or W_O
  const auto cases = load_fixture_cases(FIXTURE_FILE);
  REQUIRE(cases.size() >= 30);
  for (const auto& c : cases) {
    INFO("case " << c.name);
    const auto& m = c.matrices;
    attn::MultiHeadInput in;
    in.x = m.at("x");
    in.heads.push_back({m.at("wq"), m.at("wk"), m.at("wv")});
    attn::MultiHeadResult r;
    attn::Error err = attn::multi_head_attention(in, &r);
    INFO(err.message);
    REQUIRE(err.ok());
    REQUIRE(r.heads.size() == 1);
    const attn::AttentionResult& h = r.heads[0];
    // no W_O: output = concat = the head's output
    const std::pair<const char*, const Matrix*> results[] = {
        {"q", &h.q},           {"k", &h.k},           {"v", &h.v},
        {"scores", &h.scores}, {"scaled", &h.scaled}, {"weights", &h.weights},
        {"output", &h.output}, {"output", &r.concat}, {"output", &r.output}};
    for (const auto& [name, got] : results) {
      const Matrix& want = m.at(name);
      // 1e-12 relative to the matrix's magnitude: numpy's BLAS sums in another order
      const double scale = std::max(1.0, max_abs(want));
      const double diff = max_abs_diff(*got, want);
      INFO(name << ": max |engine - numpy| = " << diff << ", scale " << scale);
      CHECK(diff <= 1e-12 * scale);
    }
    CHECK(r.pe.rows == 0);
    CHECK(std::none_of(r.mask.hidden.begin(), r.mask.hidden.end(),
                       [](auto hidden) { return hidden; }));
  }
}

TEST_CASE("heads are concatenated in order and projected by W_O", "[multi-head]") {
  attn::MultiHeadInput in = tutorial();
  // head 1 sees the tutorial with W_V swapped column for column
  in.heads.push_back({matrix(kWq), matrix(kWk), matrix({{0.1, 0.8}, {0.9, 0.3}})});
  attn::MultiHeadResult r;
  REQUIRE(attn::multi_head_attention(in, &r).ok());
  REQUIRE(r.concat.rows == 3);
  REQUIRE(r.concat.cols == 4);
  // tests/REFERENCE.md's output, then the same with columns swapped
  const Rows out = {{0.5511785014811565, 0.49811439763014975},
                    {0.544108670773666, 0.5094261267621345},
                    {0.5370494302213317, 0.5207209116458693}};
  Rows concat;
  for (const auto& row : out) concat.push_back({row[0], row[1], row[1], row[0]});
  check_close(r.concat, concat, 1e-15);
  CHECK(r.output.data == r.concat.data);  // without W_O

  SECTION("W_O picks and sums columns of the concatenation") {
    // output[:, 0] = head 0's column 0 + head 1's column 0; output[:, 1] = 2 · head 0's column 1
    in.wo = matrix({{1, 0}, {0, 2}, {1, 0}, {0, 0}});
    REQUIRE(attn::multi_head_attention(in, &r).ok());
    REQUIRE(r.output.rows == 3);
    REQUIRE(r.output.cols == 2);
    Rows want;
    for (const auto& row : out) want.push_back({row[0] + row[1], 2 * row[1]});
    check_close(r.output, want, 1e-15);
  }
}

TEST_CASE("a causal mask lets row i look only at keys j <= i", "[mask]") {
  attn::MultiHeadInput in = tutorial();
  in.options.causal = true;
  attn::MultiHeadResult r;
  REQUIRE(attn::multi_head_attention(in, &r).ok());
  const attn::AttentionResult& h = r.heads[0];
  // scores stay Q·Kᵀ; scaled is -Infinity above the diagonal
  check_close(
      h.scores,
      {{0.26, 0.25, 0.24}, {0.24, 0.29000000000000004, 0.33999999999999997}, {0.22, 0.33, 0.44}},
      1e-15);
  const double r2 = std::sqrt(2.0);
  check_close(
      h.scaled,
      {{0.26 / r2, -kInf, -kInf}, {0.24 / r2, 0.29 / r2, -kInf}, {0.22 / r2, 0.33 / r2, 0.44 / r2}},
      1e-15);
  // row 0 sees only itself; row 1 sees 0 and 1: softmax of two
  CHECK(h.weights.at(0, 0) == 1.0);
  CHECK(h.weights.at(0, 1) == 0.0);
  CHECK(h.weights.at(0, 2) == 0.0);
  CHECK(h.weights.at(1, 2) == 0.0);
  const double w10 = 1.0 / (1.0 + std::exp((0.29 - 0.24) / r2));
  CHECK_THAT(h.weights.at(1, 0), Catch::Matchers::WithinAbs(w10, 1e-15));
  CHECK_THAT(h.weights.at(1, 1), Catch::Matchers::WithinAbs(1.0 - w10, 1e-15));
  // the last row sees every key: the unmasked result of tests/REFERENCE.md
  check_close(h.output,
              {{0.8, 0.1},
               {0.8 * w10 + 0.55 * (1 - w10), 0.1 * w10 + 0.5 * (1 - w10)},
               {0.5370494302213317, 0.5207209116458693}},
              1e-15);
  CHECK(r.mask.fully_masked == std::vector<unsigned char>{0, 0, 0});
}

TEST_CASE("padding keys receive exactly zero weight", "[mask]") {
  attn::MultiHeadInput in = tutorial();
  in.options.key_padding = {false, true, false};
  attn::MultiHeadResult r;
  REQUIRE(attn::multi_head_attention(in, &r).ok());
  for (int i = 0; i < 3; i++) {
    CHECK(r.heads[0].scaled.at(i, 1) == -kInf);
    CHECK(r.heads[0].weights.at(i, 1) == 0.0);
    CHECK_THAT(r.heads[0].weights.at(i, 0) + r.heads[0].weights.at(i, 2),
               Catch::Matchers::WithinAbs(1.0, 1e-15));
  }
  // row 0: softmax of scaled (0.26, 0.24) / √2 over keys 0 and 2
  const double w00 = 1.0 / (1.0 + std::exp((0.24 - 0.26) / std::sqrt(2.0)));
  CHECK_THAT(r.heads[0].weights.at(0, 0), Catch::Matchers::WithinAbs(w00, 1e-15));
}

TEST_CASE("a row whose every key is masked gets zero weights, a zero output and a flag", "[mask]") {
  attn::MultiHeadInput in = tutorial();
  in.heads.push_back(in.heads[0]);
  in.wo = matrix({{1, 2}, {3, 4}, {5, 6}, {7, 8}});
  attn::MultiHeadResult r;

  SECTION("causal with the first key padded: row 0 sees nothing") {
    in.options.causal = true;
    in.options.key_padding = {true, false, false};
    REQUIRE(attn::multi_head_attention(in, &r).ok());
    CHECK(r.mask.fully_masked == std::vector<unsigned char>{1, 0, 0});
    for (const auto& h : r.heads) {
      for (int j = 0; j < 3; j++) {
        CHECK(h.scaled.at(0, j) == -kInf);
        CHECK(h.weights.at(0, j) == 0.0);
      }
      CHECK(h.output.at(0, 0) == 0.0);
      CHECK(h.output.at(0, 1) == 0.0);
      CHECK(h.weights.at(1, 1) == 1.0);  // row 1 sees only key 1
    }
    CHECK(r.output.at(0, 0) == 0.0);
    CHECK(r.output.at(0, 1) == 0.0);
  }
  SECTION("every key padded: every row") {
    in.options.key_padding = {true, true, true};
    REQUIRE(attn::multi_head_attention(in, &r).ok());
    CHECK(r.mask.fully_masked == std::vector<unsigned char>{1, 1, 1});
    for (double v : r.heads[1].weights.data) CHECK(v == 0.0);
    for (double v : r.output.data) CHECK(v == 0.0);
  }
}

TEST_CASE("softmax gives -Infinity exactly 0 and an all -Infinity row zeros, never NaN",
          "[softmax][mask]") {
  Matrix w;
  attn::softmax_rows(matrix({{0.0, -kInf, 0.0}, {-kInf, -kInf, -kInf}, {-kInf, 5.0, -kInf}}), &w);
  check_close(w, {{0.5, 0.0, 0.5}, {0.0, 0.0, 0.0}, {0.0, 1.0, 0.0}}, 0.0);
}

TEST_CASE("temperature divides the scaled scores; scaling by √d_k can be switched off",
          "[temperature]") {
  attn::MultiHeadInput in = tutorial();
  attn::MultiHeadResult r;
  const double r2 = std::sqrt(2.0);
  SECTION("temperature 2") {
    in.options.temperature = 2.0;
    REQUIRE(attn::multi_head_attention(in, &r).ok());
    check_close(r.heads[0].scaled,
                {{0.26 / r2 / 2, 0.25 / r2 / 2, 0.24 / r2 / 2},
                 {0.24 / r2 / 2, 0.29 / r2 / 2, 0.34 / r2 / 2},
                 {0.22 / r2 / 2, 0.33 / r2 / 2, 0.44 / r2 / 2}},
                1e-15);
  }
  SECTION("no √d_k: scaled is the scores") {
    in.options.scale_by_sqrt_dk = false;
    REQUIRE(attn::multi_head_attention(in, &r).ok());
    CHECK(r.heads[0].scaled.data == r.heads[0].scores.data);
  }
  SECTION("no √d_k, temperature 0.5: scores times 2") {
    in.options.scale_by_sqrt_dk = false;
    in.options.temperature = 0.5;
    REQUIRE(attn::multi_head_attention(in, &r).ok());
    check_close(r.heads[0].scaled, {{0.52, 0.5, 0.48}, {0.48, 0.58, 0.68}, {0.44, 0.66, 0.88}},
                1e-15);
  }
  SECTION("a tiny temperature makes each row one-hot (and stays finite)") {
    in.options.temperature = 1e-6;
    REQUIRE(attn::multi_head_attention(in, &r).ok());
    CHECK(r.heads[0].weights.at(0, 0) == 1.0);
    CHECK(r.heads[0].weights.at(2, 2) == 1.0);
  }
}

TEST_CASE("positional encoding follows 'Attention Is All You Need'", "[pe]") {
  attn::MultiHeadInput in;
  in.x = matrix({{0, 0, 0, 0}, {0, 0, 0, 0}, {1, 1, 1, 1}});  // n = 3, d_model = 4
  in.heads.push_back(
      {matrix({{1}, {0}, {0}, {0}}), matrix({{1}, {0}, {0}, {0}}), matrix({{1}, {0}, {0}, {0}})});
  in.options.positional_encoding = true;
  attn::MultiHeadResult r;
  REQUIRE(attn::multi_head_attention(in, &r).ok());
  // columns 0, 1 have frequency 1; columns 2, 3 have 1 / 10000^(2/4) = 1/100
  const Rows pe = {{0, 1, 0, 1},
                   {std::sin(1.0), std::cos(1.0), std::sin(0.01), std::cos(0.01)},
                   {std::sin(2.0), std::cos(2.0), std::sin(0.02), std::cos(0.02)}};
  check_close(r.pe, pe, 1e-15);
  Rows x_pe = pe;
  for (double& v : x_pe[2]) v += 1;
  check_close(r.x_with_pe, x_pe, 1e-15);
  check_close(r.heads[0].q, {{0}, {std::sin(1.0)}, {1 + std::sin(2.0)}}, 1e-15);

  SECTION("an odd d_model ends with a sine column") {
    Matrix odd;
    attn::sinusoidal_positional_encoding(2, 3, &odd);
    check_close(odd,
                {{0, 1, 0}, {std::sin(1.0), std::cos(1.0), std::sin(std::pow(10000.0, -2.0 / 3))}},
                1e-15);
  }
}

TEST_CASE("cross-attention takes queries from x, keys and values from the context", "[cross]") {
  attn::MultiHeadInput in = tutorial();  // 3 queries, d_model = 2
  in.context = matrix({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}, {2, 0, 0}});  // 5 keys, d = 3
  in.heads[0].wk = matrix({{1, 0}, {0, 1}, {0, 0}});
  in.heads[0].wv = matrix({{1}, {2}, {3}});  // d_v = 1
  in.options.causal = true;
  attn::MultiHeadResult r;
  REQUIRE(attn::multi_head_attention(in, &r).ok());
  const attn::AttentionResult& h = r.heads[0];
  CHECK(h.k.rows == 5);
  CHECK(h.scores.rows == 3);
  CHECK(h.scores.cols == 5);
  CHECK(r.output.cols == 1);
  // causal is top-left aligned as in PyTorch: query i sees keys 0 … i of the context
  CHECK(h.weights.at(0, 0) == 1.0);
  CHECK(h.output.at(0, 0) == 1.0);  // value of key 0
  for (int j = 3; j < 5; j++) CHECK(h.weights.at(2, j) == 0.0);
  // query 1 = (0.3, 0.4): keys 0 and 1 are (1, 0), (0, 1): scores 0.3, 0.4
  const double w10 = 1.0 / (1.0 + std::exp(0.1 / std::sqrt(2.0)));
  CHECK_THAT(h.output.at(1, 0), Catch::Matchers::WithinAbs(w10 * 1 + (1 - w10) * 2, 1e-15));
}
