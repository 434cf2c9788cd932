#include "fixtures.h"

#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace {

double parse_number(const std::string& word, const std::string& where) {
  char* end = nullptr;
  const double v = std::strtod(word.c_str(), &end);
  if (word.empty() || *end != '\0') throw std::runtime_error("bad number " + word + " in " + where);
  return v;
}

}  // namespace

std::vector<FixtureCase> load_fixture_cases(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open fixture file " + path);
  std::vector<FixtureCase> cases;
  std::string word;
  while (in >> word) {
    if (word == "#") {
      std::getline(in, word);  // comment line
    } else if (word == "case") {
      cases.emplace_back();
      in >> cases.back().name;
    } else if (word == "end") {
      continue;
    } else if (cases.empty()) {
      throw std::runtime_error(word + " before the first case in " + path);
    } else if (word == "option") {
      std::string name, value;
      in >> name >> value;
      cases.back().options[name] = parse_number(value, "case " + cases.back().name);
    } else {
      int rows = 0, cols = 0;
      in >> rows >> cols;
      attn::Matrix m(rows, cols);
      std::string value;
      for (double& v : m.data) {
        in >> value;
        v = parse_number(value, word + " in case " + cases.back().name);
      }
      if (!in) throw std::runtime_error("bad matrix " + word + " in case " + cases.back().name);
      cases.back().matrices[word] = std::move(m);
    }
  }
  if (cases.empty()) throw std::runtime_error("no cases in " + path);
  return cases;
}

attn::MultiHeadInput multi_head_input(const FixtureCase& c) {
  const auto& m = c.matrices;
  attn::MultiHeadInput in;
  in.x = m.at("x");
  if (m.count("context")) in.context = m.at("context");
  if (m.count("wo")) in.wo = m.at("wo");
  if (m.count("keyPadding")) {
    for (double v : m.at("keyPadding").data) in.options.key_padding.push_back(v != 0.0);
  }
  in.options.causal = c.options.at("causal") != 0.0;
  in.options.scale_by_sqrt_dk = c.options.at("scale") != 0.0;
  in.options.temperature = c.options.at("temperature");
  in.options.positional_encoding = c.options.at("pe") != 0.0;
  in.options.alibi = c.options.count("alibi") && c.options.at("alibi") != 0.0;  // ALiBi cases only
  const int n_heads = static_cast<int>(c.options.at("heads"));
  for (int h = 0; h < n_heads; h++) {
    const std::string p = "h" + std::to_string(h) + ".";
    in.heads.push_back({m.at(p + "wq"), m.at(p + "wk"), m.at(p + "wv")});
    // biases (bias_cases.txt), each a 1 × d matrix, where the case has them
    if (m.count(p + "bq")) in.heads.back().bq = m.at(p + "bq").data;
    if (m.count(p + "bk")) in.heads.back().bk = m.at(p + "bk").data;
    if (m.count(p + "bv")) in.heads.back().bv = m.at(p + "bv").data;
  }
  if (m.count("bo")) in.bo = m.at("bo").data;
  return in;
}
