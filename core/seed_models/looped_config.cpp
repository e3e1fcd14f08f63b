// LoopedConfig's JSON form and the weight tensors a config implies (looped.h).
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "core/io/json_util.h"
#include "core/seed_models/config_reader.h"
#include "core/seed_models/looped.h"
#include "core/util/error.h"

namespace lsrl::seed_models {

namespace {

using nlohmann::json;

const ConfigReader loopedReader{"looped"};

constexpr long long kMaxLoops = 100000;

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
  if (!j.is_object())
    throw Error("looped config: expected a JSON object, got " + io::describeJson(j));
  LoopedConfig c;
  bool headDimGiven = false;
  for (const auto& [key, v] : j.items()) {
    if (key == "d")
      c.d = loopedReader.integer(v, key, 1, kMaxElements);
    else if (key == "heads")
      c.heads = loopedReader.integer(v, key, 1, kMaxElements);
    else if (key == "head_dim") {
      c.headDim = loopedReader.integer(v, key, 1, kMaxElements);
      headDimGiven = true;
    } else if (key == "d_ff")
      c.dFf = loopedReader.integer(v, key, 1, kMaxElements);
    else if (key == "d_freq")
      c.dFreq = loopedReader.integer(v, key, 1, kMaxElements);
    else if (key == "loops")
      c.loops = loopedReader.integer(v, key, 0, kMaxLoops);
    else if (key == "d_out")
      c.dOut = loopedReader.integer(v, key, 1, kMaxElements);
    else if (key == "timestep")
      c.timestep =
          loopedReader.named<LoopedTimestep>(v, key, loopedTimestepFromName, "tmlt, plain");
    else if (key == "pe_layout")
      c.peLayout =
          loopedReader.named<PeLayout>(v, key, peLayoutFromName, "cos_sin, sin_cos_interleaved");
    else if (key == "scoring")
      c.scoring =
          loopedReader.named<LoopedScoring>(v, key, loopedScoringFromName, "softmax, hardmax");
    else if (key == "softmax_lambda")
      c.softmaxLambda = loopedReader.number(v, key, 0, true);
    else if (key == "scale_rsqrt_s")
      c.scaleRsqrtS = loopedReader.boolean(v, key);
    else if (key == "causal")
      c.causal = loopedReader.boolean(v, key);
    else if (key == "norm")
      c.norm = loopedReader.named<LoopedNorm>(v, key, loopedNormFromName, "rms, none");
    else if (key == "rms_eps")
      c.rmsEps = loopedReader.number(v, key, 0, false);
    else if (key == "activation")
      c.activation =
          loopedReader.named<LoopedActivation>(v, key, loopedActivationFromName, "gelu, relu");
    else if (key == "inject")
      c.inject = loopedReader.named<bool>(v, key, choice<kNone, kAddInput>, "none, add_input");
    else if (key == "x0")
      c.x0Zero = loopedReader.named<bool>(v, key, choice<kInput, kZero>, "input, zero");
    else if (key == "qkvo_bias")
      c.qkvoBias = loopedReader.boolean(v, key);
    else if (key == "ff_bias")
      c.ffBias = loopedReader.boolean(v, key);
    else if (key == "baseline_compat")
      c.baselineCompat = loopedReader.boolean(v, key);
    else if (key == "modulation_init")
      c.zeroModulationInit =
          loopedReader.named<bool>(v, key, choice<kRandom, kZero>, "random, zero");
    else if (key == "seed") {
      if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<long long>() < 0))
        loopedReader.bad(key, "expected a non-negative integer, got " + io::describeJson(v));
      c.seed = v.get<uint64_t>();
    } else if (key == "task_tokens")
      c.task.tokens = loopedReader.integer(v, key, 0, kMaxElements);
    else if (key == "task_string_length")
      c.task.stringLength = loopedReader.integer(v, key, 1, kMaxElements);
    else if (key == "sudoku_box")
      c.task.sudokuBox = loopedReader.integer(v, key, 2, 3);
    else if (key == "sudoku_blanks")
      c.task.sudokuBlanks = loopedReader.integer(v, key, 0, 81);
    else if (key == "icl_dim")
      c.task.iclDim = loopedReader.integer(v, key, 1, kMaxElements);
    else if (key == "icl_points")
      c.task.iclPoints = loopedReader.integer(v, key, 0, kMaxElements);
    else if (key == "id_base")
      c.task.idBase = loopedReader.integer(v, key, 1, kMaxElements);
    else
      loopedReader.bad(key, "unknown key");
  }
  if (!headDimGiven) {
    if (c.d % c.heads != 0)
      loopedReader.bad("heads", std::to_string(c.heads) + " do not divide d = " +
                                    std::to_string(c.d) + " (give \"head_dim\")");
    c.headDim = c.d / c.heads;
  }
  if (c.task.sudokuBlanks >
      c.task.sudokuBox * c.task.sudokuBox * c.task.sudokuBox * c.task.sudokuBox)
    loopedReader.bad("sudoku_blanks",
                     std::to_string(c.task.sudokuBlanks) + " exceed the cells of the grid");
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

}  // namespace lsrl::seed_models
