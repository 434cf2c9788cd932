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

using attn::ErrorCode;
using attn::Matrix;
using Rows = std::vector<std::vector<double>>;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;

namespace {

const double kInf = std::numeric_limits<double>::infinity();

Matrix matrix(const Rows& rows) {
  Matrix m(static_cast<int>(rows.size()), rows.empty() ? 0 : static_cast<int>(rows[0].size()));
  for (int i = 0; i < m.rows; i++) {
    REQUIRE(static_cast<int>(rows[i].size()) == m.cols);
    for (int j = 0; j < m.cols; j++) m.at(i, j) = rows[i][j];
  }
  return m;
}

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

const Rows kX = {{1.0, 0.0}, {0.5, 0.5}, {0.0, 1.0}};  // the tutorial's 我爱你
const Rows kWq = {{0.5, 0.2}, {0.1, 0.6}};
const Rows kWk = {{0.4, 0.3}, {0.2, 0.7}};
const Rows kWv = {{0.8, 0.1}, {0.3, 0.9}};

attn::MultiHeadInput tutorial() {
  attn::MultiHeadInput in;
  in.x = matrix(kX);
  in.heads.push_back({matrix(kWq), matrix(kWk), matrix(kWv)});
  return in;
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

attn::Error run(const attn::MultiHeadInput& in) {
  attn::MultiHeadResult r;
  return attn::multi_head_attention(in, &r);
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

TEST_CASE("bad heads, W_O, context, padding and temperature name the operand, head and shapes",
          "[validation]") {
  const Rows w22 = {{1, 0}, {0, 1}};
  const Rows w32 = {{1, 0}, {0, 1}, {1, 1}};
  const Rows w23 = {{1, 0, 0}, {0, 1, 0}};
  auto two_heads = [&]() {
    attn::MultiHeadInput in = tutorial();
    in.heads.push_back({matrix(w22), matrix(w22), matrix(w22)});
    return in;
  };
  auto check_error = [](const attn::Error& err, ErrorCode code, const std::string& operand,
                        int head, const std::string& message) {
    CHECK(err.code == code);
    CHECK(err.operand == operand);
    CHECK(err.head == head);
    CHECK_THAT(err.message, Equals(message));
  };

  SECTION("no heads") {
    attn::MultiHeadInput in = tutorial();
    in.heads.clear();
    check_error(run(in), ErrorCode::empty, "heads", -1,
                "heads is empty: it needs at least one head { wq, wk, wv }");
  }
  SECTION("a head's W_Q rows differ from d_model") {
    attn::MultiHeadInput in = two_heads();
    in.heads[1].wq = matrix(w32);
    check_error(run(in), ErrorCode::shape, "wq", 1,
                "heads[1].wq has 3 rows but x has 2 columns: heads[1].wq must be d_model × d_k "
                "with d_model = 2 (x is 3 × 2, heads[1].wq is 3 × 2)");
  }
  SECTION("a head's W_V rows differ from d_model") {
    attn::MultiHeadInput in = two_heads();
    in.heads[1].wv = matrix(w32);
    check_error(run(in), ErrorCode::shape, "wv", 1,
                "heads[1].wv has 3 rows but x has 2 columns: heads[1].wv must be d_model × d_v "
                "with d_model = 2 (x is 3 × 2, heads[1].wv is 3 × 2)");
  }
  SECTION("a head's W_K columns differ from its W_Q's") {
    attn::MultiHeadInput in = two_heads();
    in.heads[1].wk = matrix(w23);
    check_error(run(in), ErrorCode::shape, "wk", 1,
                "heads[1].wk has 3 columns but heads[1].wq has 2: queries and keys must have "
                "the same length d_k (heads[1].wq is 2 × 2, heads[1].wk is 2 × 3)");
  }
  SECTION("heads with different d_k") {
    attn::MultiHeadInput in = two_heads();
    in.heads[1].wq = matrix(w23);
    in.heads[1].wk = matrix(w23);
    check_error(run(in), ErrorCode::shape, "wq", 1,
                "heads[1].wq has 3 columns but heads[0].wq has 2: every head must have the same "
                "d_k (heads[0].wq is 2 × 2, heads[1].wq is 2 × 3)");
  }
  SECTION("heads with different d_v") {
    attn::MultiHeadInput in = two_heads();
    in.heads[1].wv = matrix(w23);
    check_error(run(in), ErrorCode::shape, "wv", 1,
                "heads[1].wv has 3 columns but heads[0].wv has 2: every head must have the same "
                "d_v (heads[0].wv is 2 × 2, heads[1].wv is 2 × 3)");
  }
  SECTION("W_O rows differ from h·d_v") {
    attn::MultiHeadInput in = two_heads();
    in.wo = matrix(w32);
    check_error(run(in), ErrorCode::shape, "wo", -1,
                "wo is 3 × 2 but must be (h·d_v) × d_model = 4 × 2: one row per column of the "
                "heads' concatenated outputs (2 heads × d_v = 2)");
  }
  SECTION("W_O columns differ from d_model") {
    attn::MultiHeadInput in = two_heads();
    in.wo = matrix({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}});
    check_error(run(in), ErrorCode::shape, "wo", -1,
                "wo is 4 × 3 but must be (h·d_v) × d_model = 4 × 2: the output has the width "
                "d_model = 2 of x");
  }
  SECTION("W_K rows differ from the context's width") {
    attn::MultiHeadInput in = two_heads();
    in.context = matrix({{1, 2, 3}, {4, 5, 6}});
    in.heads[0].wk = matrix(w32);
    in.heads[0].wv = matrix(w32);
    check_error(run(in), ErrorCode::shape, "wk", 1,
                "heads[1].wk has 2 rows but context has 3 columns: heads[1].wk must be "
                "d_context × d_k with d_context = 3 (context is 2 × 3, heads[1].wk is 2 × 2)");
  }
  SECTION("padding for the wrong number of keys") {
    attn::MultiHeadInput in = tutorial();
    in.options.key_padding = {false, true};
    check_error(run(in), ErrorCode::shape, "keyPadding", -1,
                "keyPadding has 2 values but there are 3 keys (x has 3 rows): keyPadding needs "
                "one true/false per key");
    in.context = matrix({{1, 2}, {3, 4}, {5, 6}, {7, 8}});
    check_error(run(in), ErrorCode::shape, "keyPadding", -1,
                "keyPadding has 2 values but there are 4 keys (context has 4 rows): keyPadding "
                "needs one true/false per key");
  }
  SECTION("temperature not finite, zero or negative") {
    auto [t, code, message] = GENERATE_COPY(table<double, ErrorCode, std::string>({
        {std::nan(""), ErrorCode::not_finite, "temperature is NaN: it must be a finite number > 0"},
        {kInf, ErrorCode::not_finite, "temperature is Infinity: it must be a finite number > 0"},
        {0.0, ErrorCode::range,
         "temperature is 0: it must be > 0 (the scaled scores are divided by it)"},
        {-1.5, ErrorCode::range,
         "temperature is -1.5: it must be > 0 (the scaled scores are divided by it)"},
    }));
    attn::MultiHeadInput in = tutorial();
    in.options.temperature = t;
    check_error(run(in), code, "temperature", -1, message);
  }
  SECTION("a bad value in a head's matrix names the head") {
    const double values[] = {1, 2, std::nan(""), 4};
    const int lengths[] = {2, 2};
    Matrix m;
    check_error(attn::matrix_from_rows("wk", values, lengths, 2, &m, 2), ErrorCode::not_finite,
                "wk", 2, "heads[2].wk[1][0] is NaN: every value must be a finite number");
  }

  // after any of these, a correct compute works
  attn::MultiHeadResult r;
  REQUIRE(attn::multi_head_attention(two_heads(), &r).ok());
  CHECK_THAT(r.concat.at(0, 0), Catch::Matchers::WithinAbs(0.5511785014811565, 1e-15));
}

TEST_CASE("overflows name the step and the head", "[validation]") {
  attn::MultiHeadInput in;
  in.x = matrix({{1e160}});
  in.heads.push_back({matrix({{1}}), matrix({{1}}), matrix({{1}})});
  in.heads.push_back({matrix({{1e10}}), matrix({{1e10}}), matrix({{1}})});
  attn::Error err;

  SECTION("in a head's scores") {
    in.x = matrix({{1e150}});
    err = run(in);  // head 0: 1e300 fits; head 1: 1e320 does not
    CHECK(err.code == ErrorCode::overflow);
    CHECK(err.operand == "scores");
    CHECK(err.head == 1);
    CHECK_THAT(err.message, Contains("heads[1].scores[0][0] is Infinity"));
  }
  SECTION("in the scaled scores, from a tiny temperature") {
    in.x = matrix({{1e100}});
    in.heads.pop_back();
    in.options.temperature = 1e-200;  // 1e200 / 1e-200
    err = run(in);
    CHECK(err.operand == "scaled");
    CHECK(err.head == 0);
    CHECK_THAT(err.message, Contains("heads[0].scaled[0][0] is Infinity"));
  }
  SECTION("in the projection by W_O") {
    in.x = matrix({{1}});
    in.heads.pop_back();
    in.heads[0].wv = matrix({{1e300}});
    in.wo = matrix({{1e300}});
    err = run(in);
    CHECK(err.operand == "output");
    CHECK(err.head == -1);
    CHECK_THAT(err.message, Contains("output[0][0] is Infinity"));
  }
  SECTION("in the projection of x + PE (|PE| <= 1, so x + PE itself rounds, never overflows)") {
    const double max = std::numeric_limits<double>::max();
    in.x = matrix({{max, max}});
    in.heads = {{matrix({{1}, {1}}), matrix({{1}, {1}}), matrix({{1}, {1}})}};
    in.options.positional_encoding = true;
    err = run(in);
    CHECK(err.operand == "q");
    CHECK(err.head == 0);
    CHECK_THAT(err.message, Contains("heads[0].q[0][0] is Infinity"));
  }
  attn::MultiHeadResult r;
  REQUIRE(attn::multi_head_attention(tutorial(), &r).ok());
  CHECK_THAT(r.output.at(0, 0), Catch::Matchers::WithinAbs(0.5511785014811565, 1e-15));
}

TEST_CASE("sizes beyond the limits are errors before any result is allocated", "[limits]") {
  auto input = [](int n_q, int d_model, int n_heads, int d_k, int d_v) {
    attn::MultiHeadInput in;
    in.x = attn::Matrix(n_q, d_model);
    for (int h = 0; h < n_heads; h++) {
      in.heads.push_back(attn::Head{attn::Matrix(d_model, d_k), attn::Matrix(d_model, d_k),
                                    attn::Matrix(d_model, d_v)});
    }
    return in;
  };
  auto [in, operand, text] = GENERATE_COPY(table<attn::MultiHeadInput, std::string, std::string>({
      {input(attn::kMaxTokens + 1, 1, 1, 1, 1), "x",
       "the number of tokens (rows of x) is 4097, more than the 4096 supported"},
      {input(2, attn::kMaxDimension + 1, 1, 1, 1), "x",
       "d_model (columns of x) is 1025, more than the 1024 supported"},
      {input(2, 1, attn::kMaxHeads + 1, 1, 1), "heads",
       "the number of heads is 65, more than the 64 supported"},
      {input(2, 1, 2, attn::kMaxDimension + 1, 1), "wq",
       "d_k (columns of heads[0].wq) is 1025, more than the 1024 supported"},
      {input(2, 1, 2, 1, attn::kMaxDimension + 1), "wv",
       "d_v (columns of heads[0].wv) is 1025, more than the 1024 supported"},
      {input(attn::kMaxTokens, 1, 3, 1, 1), "x",
       "heads × queries × keys = 3 × 4096 × 4096 is 50331648, more than the 33554432 supported"},
  }));
  attn::MultiHeadResult r;
  attn::Error err = attn::multi_head_attention(in, &r);
  CHECK(err.code == attn::ErrorCode::limit);
  CHECK(err.operand == operand);
  CHECK_THAT(err.message, Catch::Matchers::StartsWith(text));
  CHECK(r.heads.empty());  // nothing computed, nothing allocated for results
}

TEST_CASE("random shapes and options always give finite weights that sum to one", "[random]") {
  // Invariants only (numpy agreement is the fixtures' job); the sanitizer build runs this too.
  std::mt19937 rng(20261130);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto random_matrix = [&](int rows, int cols, double scale) {
    attn::Matrix m(rows, cols);
    std::normal_distribution<double> normal(0.0, scale);
    for (double& v : m.data) v = normal(rng);
    return m;
  };
  for (int trial = 0; trial < 300; trial++) {
    const int n_q = uniform(1, 40), d_model = uniform(1, 24), d_k = uniform(1, 16),
              d_v = uniform(1, 16), n_heads = uniform(1, 4);
    const bool cross = uniform(0, 1) == 1;
    const int n_k = cross ? uniform(1, 40) : n_q;
    const int d_ctx = cross ? uniform(1, 24) : d_model;
    const double scale = std::pow(10.0, uniform(-2, 1));
    attn::MultiHeadInput in;
    in.x = random_matrix(n_q, d_model, scale);
    if (cross) in.context = random_matrix(n_k, d_ctx, scale);
    for (int h = 0; h < n_heads; h++) {
      in.heads.push_back(attn::Head{random_matrix(d_model, d_k, scale),
                                    random_matrix(d_ctx, d_k, scale),
                                    random_matrix(d_ctx, d_v, scale)});
    }
    if (uniform(0, 1) == 1) in.wo = random_matrix(n_heads * d_v, d_model, scale);
    in.options.causal = uniform(0, 1) == 1;
    if (uniform(0, 2) == 0) {
      for (int j = 0; j < n_k; j++) in.options.key_padding.push_back(uniform(0, 3) == 0);
    }
    in.options.scale_by_sqrt_dk = uniform(0, 3) != 0;
    in.options.temperature = std::pow(10.0, uniform(-1, 1));
    in.options.positional_encoding = uniform(0, 2) == 0;

    INFO("trial " << trial << ": n_q " << n_q << ", n_k " << n_k << ", heads " << n_heads);
    attn::MultiHeadResult r;
    REQUIRE(attn::multi_head_attention(in, &r).ok());
    for (const attn::AttentionResult& h : r.heads) {
      REQUIRE(h.weights.rows == n_q);
      REQUIRE(h.weights.cols == n_k);
      for (int i = 0; i < n_q; i++) {
        double sum = 0.0;
        for (int j = 0; j < n_k; j++) sum += h.weights.at(i, j);
        CHECK_THAT(sum, Catch::Matchers::WithinAbs(r.mask.fully_masked[i] ? 0.0 : 1.0, 1e-12));
      }
    }
    REQUIRE(r.output.rows == n_q);
    REQUIRE(r.output.cols == (in.wo.rows > 0 ? d_model : n_heads * d_v));
    for (double v : r.output.data) CHECK(std::isfinite(v));
  }
}
