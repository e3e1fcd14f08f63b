// The exported tensors mean what docs/architectures.md says: tests/targets/numpy_reference.py
// reimplements every target in NumPy from the documented equations and tensor layouts
// (PyTorch gate orders, conv orientation), reads the safetensors files by hand, and must
// reproduce LSRL's float64 outputs within 1e-9 · max(1, |value|). Runs LSRL_PYTHON
// (Debian's /usr/bin/python3, which has numpy) and skips only if it or numpy is missing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "core/io/safetensors.h"
#include "core/targets/import.h"
#include "targets/arch_helpers.h"

namespace lsrl {
namespace {

using testing_arch::allTargetConfigs;
using testing_arch::mat;
using testing_arch::randomTokens;
using testing_arch::vec;

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// A state after a ReLU (pass-through layer), a Multi with signed halves, a second state.
Graph program() {
  Graph g;
  Var x = Input(g, 2);
  Var r = ReLU(Linear(x, mat({{1, -1}, {2, 1}, {0, 1}}), vec({0, Exact::rational(-1, 2), 1})));
  Var s = LinState(r, mat({{1, 0}, {Exact::rational(1, 2), -1}}), mat({{1, 0, -1}, {0, 2, 1}}),
                   vec({1, -1}), vec({0, Exact::rational(1, 4)}));
  Var r2 = ReLU(Linear(s, mat({{1, 1}, {-1, 2}, {0, 1}}), vec({0, 1, -1})));
  Var c = Linear(r2, mat({{1, 0, 0}, {0, -1, 1}, {1, 1, 0}, {0, 0, 2}}), vec({0, 0, -1, 1}));
  Var d = Linear(Multi(c), mat({{1, -1}, {1, 1}}), vec({1, 0}));
  Var s2 = LinState(d, mat({{Exact::rational(1, 2), 1}, {0, -1}}), mat({{1, 0}, {1, 1}}),
                    vec({0, 2}), vec({1, 0}));
  Var out = Linear(s2, mat({{1, -2}, {3, 1}}), vec({0, Exact::rational(1, 3)}));
  g.setOutput(out.id());
  return g;
}

TEST(ArchNumpyReference, EveryTargetMatchesAnIndependentNumpyForwardPass) {
  const std::string python = LSRL_PYTHON;
  if (!std::filesystem::exists(python)) GTEST_SKIP() << python << " does not exist";
  if (std::system((shellQuote(python) + " -c 'import numpy' >/dev/null 2>&1").c_str()) != 0) {
    GTEST_SKIP() << python << " has no numpy";
  }
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("lsrl_arch_numpy_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const Graph g = program();
  std::mt19937 rng(41);
  const FloatSequence tokens = floatTokens(randomTokens(rng, 14, 2));
  nlohmann::json manifest = nlohmann::json::array();
  int i = 0;
  for (const auto& c : allTargetConfigs(14)) {
    if ((c.target == Target::LinearRnn || c.target == Target::Rnn) && firstMulti(g) != kNoNode) {
      continue;
    }
    const TargetModel m = buildTarget(g, c.target, c.options);
    const std::string file = (dir / ("model_" + std::to_string(i++) + ".safetensors")).string();
    writeSafetensors(file, toTensorFile(m));
    manifest.push_back(
        {{"label", c.label}, {"file", file}, {"inputs", tokens}, {"outputs", m.runFloat(tokens)}});
  }
  const std::string manifestPath = (dir / "manifest.json").string();
  std::ofstream(manifestPath) << manifest.dump();
  const std::string script = std::string(LSRL_SOURCE_DIR) + "/tests/targets/numpy_reference.py";
  const std::string cmd =
      shellQuote(python) + " " + shellQuote(script) + " " + shellQuote(manifestPath) + " 2>&1";
  std::string output;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof buf, pipe)) output.append(buf, n);
  const int status = ::pclose(pipe);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(status, 0) << output;
  EXPECT_NE(output.find("numpy-ok " + std::to_string(manifest.size())), std::string::npos)
      << output;
}

}  // namespace
}  // namespace lsrl
