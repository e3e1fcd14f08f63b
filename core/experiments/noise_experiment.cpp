#include "core/experiments/noise_experiment.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <exception>
#include <memory>
#include <mutex>
#include <random>
#include <thread>

#include "core/compiler/compiler.h"
#include "core/executor/executor.h"
#include "core/experiments/noise.h"
#include "core/numbers/exact_field.h"
#include "core/programs/program_registry.h"
#include "core/programs/prompts.h"
#include "core/util/error.h"
#include "core/util/quote_input.h"

namespace lsrl {

namespace {

const std::vector<std::string> kTok2tokProgramKeys = {"L", "mu", "lambda"};
const std::vector<std::string> kVec2vecProgramKeys = {"n", "m", "mu", "lambda"};

uint64_t splitMix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Depends on the seed, the variant and σ's value only, so a σ or variant draws the same
// noise whichever others are in the list.
uint64_t noiseSeed(uint64_t seed, Conditional variant, double sigma) {
  return splitMix(splitMix(seed) ^ splitMix(static_cast<uint64_t>(variant) + 1) ^
                  std::bit_cast<uint64_t>(sigma));
}

int settingInt(const std::map<std::string, std::string>& s, const std::string& key, int lo,
               int hi) {
  const std::string& text = s.at(key);
  const Exact v = Exact::parse(text);
  if (!v.isInteger() || v < Exact(lo) || v > Exact(hi)) {
    throw Error("noise experiment: " + key + " must be an integer in [" + std::to_string(lo) +
                ", " + std::to_string(hi) + "], got " + quoteInput(text));
  }
  return static_cast<int>(v.toRational().get_num().get_si());
}

std::map<std::string, std::string> pick(const std::map<std::string, std::string>& s,
                                        const std::vector<std::string>& keys) {
  std::map<std::string, std::string> out;
  for (const std::string& k : keys) out[k] = s.at(k);
  return out;
}

// One query of one seed: its input tokens and what a correct model answers.
struct Query {
  FloatSequence tokens;
  std::vector<int> answer;     // tok2tok: the value's tokens
  std::vector<double> target;  // vec2vec: f(x)
};

// The queries of one seed (its dictionary or target function), shared by every variant.
struct SeedCase {
  std::vector<Query> queries;
};

class Experiment {
 public:
  Experiment(const NoiseExperimentConfig& config,
             const std::function<void(const NoiseProgress&)>& progress,
             const std::function<bool()>& cancelled)
      : config_(config), progress_(progress), cancelled_(cancelled) {
    settings_ = noiseExperimentDefaults(config.program);
    for (const auto& [k, v] : config.settings) {
      if (settings_.count(k) == 0) {
        std::string valid;
        for (const auto& [key, unused] : settings_) {
          if (!valid.empty()) valid += ", ";
          valid += key;
        }
        throw Error("noise experiment (" + std::string(noiseProgramName(config.program)) +
                    "): unknown setting " + quoteInput(k) + "; valid settings are: " + valid);
      }
      settings_[k] = v;
    }
    if (config.variants.empty()) throw Error("noise experiment: no variants given");
    if (config.sigmas.empty()) throw Error("noise experiment: no sigmas given");
    for (double s : config.sigmas) {
      if (!std::isfinite(s) || s < 0) {
        throw Error("noise experiment: sigma must be a finite number >= 0, got " +
                    std::to_string(s));
      }
    }
    if (config.seeds < 1) {
      throw Error("noise experiment: seeds must be at least 1, got " +
                  std::to_string(config.seeds));
    }
    queries_ = settingInt(settings_, "queries", 1, 100000);
    if (tok2tok()) {
      L_ = settingInt(settings_, "L", 1, kMaxTok2tokLength);
      entries_ = settingInt(settings_, "entries", 1, 100000);
      vocab_ = settingInt(settings_, "vocab", 1, 1 << 20);
      tok2tokParams(pick(settings_, kTok2tokProgramKeys));  // validates mu and lambda early
    } else {
      const Vec2vecParams p = vec2vecParams(pick(settings_, kVec2vecProgramKeys));
      n_ = p.n;
      m_ = p.m;
      mu_ = p.mu;
      N_ = settingInt(settings_, "N", 1, 1 << 20);
      vec2vecCellCount(n_, N_);  // throws when the prompt would be too long
    }
    total_ = static_cast<long long>(config.seeds) * static_cast<long long>(config.variants.size()) *
             (1 + queries_);
  }

  NoiseExperimentResult run() {
    NoiseExperimentResult result;
    result.metricName = tok2tok() ? "percent_wrong_tokens" : "mean_abs_error";
    const size_t V = config_.variants.size(), S = config_.sigmas.size();
    const auto seeds = static_cast<size_t>(config_.seeds);
    std::vector<double> metric(V * S * seeds, 0.0);  // [variant][sigma][seed]
    for (size_t si = 0; si < seeds; ++si) {
      const uint64_t seed = config_.firstSeed + si;
      const SeedCase seedCase = makeSeedCase(seed);
      for (size_t vi = 0; vi < V; ++vi) {
        const Conditional variant = config_.variants[vi];
        const std::vector<double> m = runVariant(seed, variant, seedCase, si == 0, result);
        for (size_t k = 0; k < S; ++k) metric[(vi * S + k) * seeds + si] = m[k];
      }
    }
    for (size_t vi = 0; vi < V; ++vi) {
      for (size_t k = 0; k < S; ++k) {
        for (size_t si = 0; si < seeds; ++si) {
          result.rows.push_back({config_.variants[vi], config_.sigmas[k], config_.firstSeed + si,
                                 metric[(vi * S + k) * seeds + si]});
        }
      }
    }
    return result;
  }

 private:
  bool tok2tok() const { return config_.program == NoiseProgram::Tok2tok; }

  void checkCancel() const {
    if (cancelled_ && cancelled_()) {
      throw Cancelled("noise experiment cancelled");
    }
  }

  void report(const std::string& what) {
    const std::lock_guard<std::mutex> lock(progressMutex_);
    ++done_;
    if (progress_) progress_({done_, total_, what});
  }

  SeedCase makeSeedCase(uint64_t seed) const {
    SeedCase c;
    std::mt19937_64 rng(splitMix(seed ^ 0x51ed270b27ULL));
    if (tok2tok()) {
      const Tok2tokCase dict = randomDictionary(entries_, L_, vocab_, seed);
      // Distinct keys as queries while there are enough of them.
      std::vector<int> order(static_cast<size_t>(entries_));
      for (int i = 0; i < entries_; ++i) order[static_cast<size_t>(i)] = i;
      for (int q = 0; q < queries_; ++q) {
        const int pool = entries_ - q % entries_;
        const int j = q % entries_ + uniformInt(rng, 0, pool - 1);
        std::swap(order[static_cast<size_t>(q % entries_)], order[static_cast<size_t>(j)]);
        const std::vector<int>& key = dict.dictionary[static_cast<size_t>(order[q % entries_])].key;
        Query query;
        query.tokens = floatTokens(tok2tokInput(dict.dictionary, key, L_, vocab_));
        query.answer = tok2tokExpected(dict.dictionary, key, L_, vocab_);
        c.queries.push_back(std::move(query));
      }
    } else {
      const TargetFunction f = smoothTestFunction(n_, m_, seed);
      const ExactSequence prompt = vec2vecPromptTokens(n_, m_, N_, f);
      for (int q = 0; q < queries_; ++q) {
        const std::vector<double> x = randomValidQuery(n_, N_, mu_, rng);
        ExactVector ex;
        for (double v : x) ex.emplace_back(v);
        Query query;
        query.tokens = floatTokens(vec2vecInput(ex, m_, prompt));
        query.target = f(x);
        c.queries.push_back(std::move(query));
      }
    }
    return c;
  }

  Graph buildVariant(Conditional variant) const {
    Graph g;
    if (tok2tok()) {
      Tok2tokParams p = tok2tokParams(pick(settings_, kTok2tokProgramKeys));
      p.conditional = variant;
      g = buildTok2tok(p);
    } else {
      Vec2vecParams p = vec2vecParams(pick(settings_, kVec2vecProgramKeys));
      p.conditional = variant;
      g = buildVec2vec(p);
    }
    if (config_.precision == Precision::Exact) return g;
    return fitConstants(g, inputDomain(), config_.precision).graph;
  }

  // What the prompts hold: tokens 0..vocab-1, or vec2vec's coordinates, cell corners and
  // values (smoothTestFunction: in [-3, 3]); as long as one prompt.
  InputDomain inputDomain() const {
    if (tok2tok()) return {Exact(0), Exact(vocab_ - 1), mpq_class(1), L_ * (2 * entries_ + 1)};
    return {Exact(-3), Exact(3), std::nullopt, static_cast<int>(vec2vecCellCount(n_, N_)) + 1};
  }

  // The metric per σ for one seed and variant.
  std::vector<double> runVariant(uint64_t seed, Conditional variant, const SeedCase& seedCase,
                                 bool recordSize, NoiseExperimentResult& result) {
    checkCancel();
    const std::string label =
        "seed " + std::to_string(seed) + ", " + std::string(conditionalName(variant));
    CompileOptions co;
    co.backend = Backend::Float64;
    co.recordHistory = false;
    co.optimize = config_.optimize;
    co.progress = [this](long long) { return !(cancelled_ && cancelled_()); };
    const CompileResult compiled = compile(buildVariant(variant), co);
    if (recordSize) {
      const GraphSize size = graphSize(compiled.path);
      result.compiles.push_back({variant, size.stateDim, size.nonZeroParams, compiled.seconds});
    }
    report(label + ": compiled");

    PlanOptions po;
    po.exact = false;
    po.allowHugeSparse = true;  // compiled paths are sparse but huge when counted densely
    const std::shared_ptr<const Plan> clean = Plan::make(compiled.path, po);
    std::vector<std::shared_ptr<const Plan>> noisy;
    for (double sigma : config_.sigmas) {
      checkCancel();
      if (sigma == 0) {
        noisy.push_back(clean);
      } else {
        noisy.push_back(Plan::make(
            withWeightNoise(compiled.path, {sigma, noiseSeed(seed, variant, sigma)}), po));
      }
    }

    const size_t Q = seedCase.queries.size(), S = noisy.size();
    std::vector<double> perQuery(Q * S, 0.0);  // [query][sigma]: wrong tokens or abs error
    forEachQuery(Q, [&](size_t q) {
      runQuery(clean, noisy, seedCase.queries[q], perQuery.data() + q * S);
      report(label + ": query " + std::to_string(q + 1) + "/" + std::to_string(Q));
    });
    std::vector<double> metric(S, 0.0);
    for (size_t k = 0; k < S; ++k) {
      double sum = 0;
      for (size_t q = 0; q < Q; ++q) sum += perQuery[q * S + k];  // fixed order
      metric[k] = tok2tok() ? 100.0 * sum / static_cast<double>(Q * static_cast<size_t>(L_))
                            : sum / static_cast<double>(Q * static_cast<size_t>(m_));
    }
    return metric;
  }

  // Runs fn(q) for q in [0, n) on up to config.threads threads; rethrows the first error.
  void forEachQuery(size_t n, const std::function<void(size_t)>& fn) {
    size_t threads = config_.threads > 0 ? static_cast<size_t>(config_.threads)
                                         : std::max(1u, std::thread::hardware_concurrency());
    threads = std::min(threads, n);
    std::vector<std::exception_ptr> errors(n);
    std::atomic<size_t> next{0};
    auto worker = [&] {
      for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) {
        try {
          fn(i);
        } catch (...) {
          errors[i] = std::current_exception();
          next.store(n);  // stop handing out work
        }
      }
    };
    if (threads <= 1) {
      worker();
    } else {
      std::vector<std::thread> pool;
      for (size_t t = 0; t < threads; ++t) {
        pool.emplace_back([&worker] {
          const ExactThreadScope releaseCaches;
          worker();
        });
      }
      for (std::thread& t : pool) t.join();
    }
    for (const std::exception_ptr& e : errors) {
      if (e) std::rethrow_exception(e);
    }
  }

  // Steps the clean model and every noisy model together; before each step the noisy
  // LinStates take the clean model's current states. Writes one error count/sum per σ.
  void runQuery(const std::shared_ptr<const Plan>& cleanPlan,
                const std::vector<std::shared_ptr<const Plan>>& noisyPlans, const Query& query,
                double* errors) {
    FloatExecutor clean(cleanPlan);
    std::vector<FloatExecutor> noisy;
    noisy.reserve(noisyPlans.size());
    for (const auto& p : noisyPlans) noisy.emplace_back(p);
    const std::vector<NodeId>& states = cleanPlan->linStates();
    std::vector<FloatVector> cleanStates(states.size());
    const size_t T = query.tokens.size();
    const size_t answerFrom = tok2tok() ? T - static_cast<size_t>(L_) : T - 1;
    FloatVector out;
    for (size_t t = 0; t < T; ++t) {
      checkCancel();
      // With every LinState overwritten before each step, a noisy step's output depends
      // only on the clean states and the token: steps whose output is not read can be
      // skipped without changing any result.
      const bool read = t >= answerFrom || !config_.skipUnreadSteps;
      for (size_t i = 0; i < states.size() && read; ++i) cleanStates[i] = clean.value(states[i]);
      for (size_t k = 0; k < noisy.size() && read; ++k) {
        if (noisyPlans[k] == cleanPlan) continue;  // σ = 0: the clean run itself
        for (size_t i = 0; i < states.size(); ++i) noisy[k].setState(states[i], cleanStates[i]);
        noisy[k].step(query.tokens[t], out);
        if (t >= answerFrom) errors[k] += error(query, t - answerFrom, out);
      }
      clean.step(query.tokens[t], out);
      if (t >= answerFrom) {
        const double e = error(query, t - answerFrom, out);
        for (size_t k = 0; k < noisy.size(); ++k) {
          if (noisyPlans[k] == cleanPlan) errors[k] += e;
        }
      }
    }
  }

  // tok2tok: 1 when the k-th answer token is wrong; vec2vec: Σ |out − f(x)|.
  double error(const Query& query, size_t k, const FloatVector& out) const {
    if (tok2tok()) {
      const double y = out.at(0);
      if (!std::isfinite(y)) return 1;
      return std::nearbyint(y) == static_cast<double>(query.answer.at(k)) ? 0 : 1;
    }
    double sum = 0;
    for (size_t i = 0; i < query.target.size(); ++i) sum += std::fabs(out.at(i) - query.target[i]);
    return sum;
  }

  const NoiseExperimentConfig& config_;
  const std::function<void(const NoiseProgress&)>& progress_;
  const std::function<bool()>& cancelled_;
  std::map<std::string, std::string> settings_;
  int queries_ = 0;
  int L_ = 0, entries_ = 0, vocab_ = 0;  // tok2tok
  int n_ = 0, m_ = 0, N_ = 0;            // vec2vec
  Exact mu_;
  std::mutex progressMutex_;
  long long done_ = 0, total_ = 0;
};

}  // namespace

std::string_view noiseProgramName(NoiseProgram p) {
  return p == NoiseProgram::Tok2tok ? "tok2tok" : "vec2vec";
}

NoiseProgram parseNoiseProgram(std::string_view name) {
  if (name == "tok2tok") return NoiseProgram::Tok2tok;
  if (name == "vec2vec") return NoiseProgram::Vec2vec;
  throw Error("unknown program \"" + std::string(name) +
              "\" for the noise experiment; expected tok2tok or vec2vec");
}

std::map<std::string, std::string> noiseExperimentDefaults(NoiseProgram p) {
  const std::string mu = kDefaultScale.toString(), lambda = kDefaultLargeConstant.toString();
  if (p == NoiseProgram::Tok2tok) {
    return {{"L", "10"},       {"mu", mu},      {"lambda", lambda},
            {"entries", "20"}, {"vocab", "10"}, {"queries", "5"}};
  }
  return {{"n", "2"}, {"m", "2"}, {"mu", mu}, {"lambda", lambda}, {"N", "8"}, {"queries", "10"}};
}

NoiseExperimentResult runNoiseExperiment(const NoiseExperimentConfig& config,
                                         const std::function<void(const NoiseProgress&)>& progress,
                                         const std::function<bool()>& cancelled) {
  return Experiment(config, progress, cancelled).run();
}

std::vector<NoiseSummaryRow> summarizeNoise(const std::vector<NoiseRow>& rows) {
  std::vector<NoiseSummaryRow> out;
  for (const NoiseRow& r : rows) {
    auto it = std::find_if(out.begin(), out.end(), [&](const NoiseSummaryRow& s) {
      return s.variant == r.variant && s.sigma == r.sigma;
    });
    if (it == out.end()) {
      out.push_back({r.variant, r.sigma, 0, 0});
      it = out.end() - 1;
    }
    it->mean += r.metric;
    ++it->seeds;
  }
  for (NoiseSummaryRow& s : out) s.mean /= s.seeds;
  return out;
}

}  // namespace lsrl
