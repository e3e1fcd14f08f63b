// LoopedConfig's JSON form and the weight tensors a config implies (looped.h).
#include <cmath>
#include <string>

#include "core/models/looped.h"
#include "core/util/error.h"

namespace lsrl::models {

namespace {

using nlohmann::json;

constexpr long long kMaxElements = 1000000;  // "absurd": more than 10^6 weights
constexpr long long kMaxLoops = 100000;

[[noreturn]] void bad(const std::string& key, const std::string& what) {
  throw Error("looped config: \"" + key + "\": " + what);
}

int integerAt(const json& v, const std::string& key, long long lo, long long hi) {
  const std::string range =
      "expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi);
  if (!v.is_number_integer()) bad(key, range + ", got " + v.dump());
  const bool tooBig =
      v.is_number_unsigned() && v.get<unsigned long long>() > static_cast<unsigned long long>(hi);
  if (tooBig || v.get<long long>() < lo || v.get<long long>() > hi)
    bad(key, range + ", got " + v.dump());
  return static_cast<int>(v.get<long long>());
}

double numberAt(const json& v, const std::string& key, double lo, bool loOpen) {
  const std::string range =
      std::string("expected a finite number ") + (loOpen ? "> " : "≥ ") + json(lo).dump();
  if (!v.is_number()) bad(key, range + ", got " + v.dump());
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < lo || (loOpen && x == lo)) bad(key, range + ", got " + v.dump());
  return x;
}

bool boolAt(const json& v, const std::string& key) {
  if (!v.is_boolean()) bad(key, "expected true or false, got " + v.dump());
  return v.get<bool>();
}

template <class E>
E nameAt(const json& v, const std::string& key, std::optional<E> (*fromName)(std::string_view),
         const std::string& choices) {
  if (!v.is_string()) bad(key, "expected one of " + choices + ", got " + v.dump());
  const std::optional<E> e = fromName(v.get<std::string>());
  if (!e) bad(key, "unknown name " + v.dump() + " (expected one of " + choices + ")");
  return *e;
}

// Two-valued string options stored as bools.
template <const char* kFalse, const char* kTrue>
std::optional<bool> choice(std::string_view name) {
  if (name == kFalse) return false;
  if (name == kTrue) return true;
  return std::nullopt;
}
constexpr char kNone[] = "none", kAddInput[] = "add_input", kInput[] = "input", kZero[] = "zero",
               kRandom[] = "random";

}  // namespace

const char* loopedTimestepName(LoopedTimestep t) {
  return t == LoopedTimestep::Tmlt ? "tmlt" : "plain";
}

std::optional<LoopedTimestep> loopedTimestepFromName(std::string_view name) {
  if (name == "tmlt") return LoopedTimestep::Tmlt;
  if (name == "plain") return LoopedTimestep::Plain;
  return std::nullopt;
}

LoopedBlockOptions LoopedConfig::blockOptions() const {
  LoopedBlockOptions o;
  o.heads = heads;
  o.headDim = headDim;
  o.scoring = scoring;
  o.lambda = softmaxLambda;
  o.scaleRsqrtS = scaleRsqrtS;
  o.causal = causal;
  o.norm = norm;
  o.rmsEps = rmsEps;
  o.activation = activation;
  o.baselineCompat = baselineCompat;
  return o;
}

json LoopedConfig::toJson() const {
  return {{"d", d},
          {"heads", heads},
          {"head_dim", headDim},
          {"d_ff", dFf},
          {"d_freq", dFreq},
          {"loops", loops},
          {"d_out", dOut},
          {"timestep", loopedTimestepName(timestep)},
          {"pe_layout", peLayoutName(peLayout)},
          {"scoring", loopedScoringName(scoring)},
          {"softmax_lambda", softmaxLambda},
          {"scale_rsqrt_s", scaleRsqrtS},
          {"causal", causal},
          {"norm", loopedNormName(norm)},
          {"rms_eps", rmsEps},
          {"activation", loopedActivationName(activation)},
          {"inject", inject ? kAddInput : kNone},
          {"x0", x0Zero ? kZero : kInput},
          {"qkvo_bias", qkvoBias},
          {"ff_bias", ffBias},
          {"baseline_compat", baselineCompat},
          {"modulation_init", zeroModulationInit ? kZero : kRandom},
          {"seed", seed},
          {"task_tokens", task.tokens},
          {"task_string_length", task.stringLength},
          {"sudoku_box", task.sudokuBox},
          {"sudoku_blanks", task.sudokuBlanks},
          {"icl_dim", task.iclDim},
          {"icl_points", task.iclPoints},
          {"id_base", task.idBase}};
}

LoopedConfig LoopedConfig::fromJson(const json& j) {
  if (!j.is_object()) throw Error("looped config: expected a JSON object, got " + j.dump());
  LoopedConfig c;
  bool headDimGiven = false;
  for (const auto& [key, v] : j.items()) {
    if (key == "d")
      c.d = integerAt(v, key, 1, kMaxElements);
    else if (key == "heads")
      c.heads = integerAt(v, key, 1, kMaxElements);
    else if (key == "head_dim") {
      c.headDim = integerAt(v, key, 1, kMaxElements);
      headDimGiven = true;
    } else if (key == "d_ff")
      c.dFf = integerAt(v, key, 1, kMaxElements);
    else if (key == "d_freq")
      c.dFreq = integerAt(v, key, 1, kMaxElements);
    else if (key == "loops")
      c.loops = integerAt(v, key, 0, kMaxLoops);
    else if (key == "d_out")
      c.dOut = integerAt(v, key, 1, kMaxElements);
    else if (key == "timestep")
      c.timestep = nameAt<LoopedTimestep>(v, key, loopedTimestepFromName, "tmlt, plain");
    else if (key == "pe_layout")
      c.peLayout = nameAt<PeLayout>(v, key, peLayoutFromName, "cos_sin, sin_cos_interleaved");
    else if (key == "scoring")
      c.scoring = nameAt<LoopedScoring>(v, key, loopedScoringFromName, "softmax, hardmax");
    else if (key == "softmax_lambda")
      c.softmaxLambda = numberAt(v, key, 0, true);
    else if (key == "scale_rsqrt_s")
      c.scaleRsqrtS = boolAt(v, key);
    else if (key == "causal")
      c.causal = boolAt(v, key);
    else if (key == "norm")
      c.norm = nameAt<LoopedNorm>(v, key, loopedNormFromName, "rms, none");
    else if (key == "rms_eps")
      c.rmsEps = numberAt(v, key, 0, false);
    else if (key == "activation")
      c.activation = nameAt<LoopedActivation>(v, key, loopedActivationFromName, "gelu, relu");
    else if (key == "inject")
      c.inject = nameAt<bool>(v, key, choice<kNone, kAddInput>, "none, add_input");
    else if (key == "x0")
      c.x0Zero = nameAt<bool>(v, key, choice<kInput, kZero>, "input, zero");
    else if (key == "qkvo_bias")
      c.qkvoBias = boolAt(v, key);
    else if (key == "ff_bias")
      c.ffBias = boolAt(v, key);
    else if (key == "baseline_compat")
      c.baselineCompat = boolAt(v, key);
    else if (key == "modulation_init")
      c.zeroModulationInit = nameAt<bool>(v, key, choice<kRandom, kZero>, "random, zero");
    else if (key == "seed") {
      if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<long long>() < 0))
        bad(key, "expected a non-negative integer, got " + v.dump());
      c.seed = v.get<uint64_t>();
    } else if (key == "task_tokens")
      c.task.tokens = integerAt(v, key, 0, kMaxElements);
    else if (key == "task_string_length")
      c.task.stringLength = integerAt(v, key, 1, kMaxElements);
    else if (key == "sudoku_box")
      c.task.sudokuBox = integerAt(v, key, 2, 3);
    else if (key == "sudoku_blanks")
      c.task.sudokuBlanks = integerAt(v, key, 0, 81);
    else if (key == "icl_dim")
      c.task.iclDim = integerAt(v, key, 1, kMaxElements);
    else if (key == "icl_points")
      c.task.iclPoints = integerAt(v, key, 0, kMaxElements);
    else if (key == "id_base")
      c.task.idBase = integerAt(v, key, 1, kMaxElements);
    else
      bad(key, "unknown key");
  }
  if (!headDimGiven) {
    if (c.d % c.heads != 0)
      bad("heads", std::to_string(c.heads) + " do not divide d = " + std::to_string(c.d) +
                       " (give \"head_dim\")");
    c.headDim = c.d / c.heads;
  }
  if (c.task.sudokuBlanks >
      c.task.sudokuBox * c.task.sudokuBox * c.task.sudokuBox * c.task.sudokuBox)
    bad("sudoku_blanks", std::to_string(c.task.sudokuBlanks) + " exceed the cells of the grid");
  long long total = 0;
  for (const LoopedWeightSpec& s : loopedWeightSpecs(c)) {
    long long n = 1;
    for (const int64_t x : s.shape) n *= x;
    total += n;
    if (total > kMaxElements)
      throw Error("looped config: the model would have more than " + std::to_string(kMaxElements) +
                  " weights");
  }
  return c;
}

std::vector<LoopedWeightSpec> loopedWeightSpecs(const LoopedConfig& c) {
  const int64_t d = c.d, inner = int64_t{c.heads} * c.headDim, f = c.dFf;
  std::vector<LoopedWeightSpec> specs;
  auto linear = [&](const std::string& name, int64_t out, int64_t in, bool bias) {
    specs.push_back({name + ".weight", {out, in}});
    if (bias) specs.push_back({name + ".bias", {out}});
  };
  linear("attn.q", inner, d, c.qkvoBias);
  linear("attn.k", inner, d, c.qkvoBias);
  linear("attn.v", inner, d, c.qkvoBias);
  linear("attn.o", d, inner, c.qkvoBias);
  linear("mlp.fc1", f, d, c.ffBias);
  linear("mlp.fc2", d, f, c.ffBias);
  if (c.timestep == LoopedTimestep::Tmlt) {
    linear("timestep.fc1", d, c.dFreq, true);  // W_4, b_4
    linear("timestep.fc2", d, d, true);        // W_3, b_3
    linear("modulation", 4 * d, d, true);      // W_5, b_5
  }
  linear("readout", c.dOut, d, true);
  return specs;
}

}  // namespace lsrl::models
