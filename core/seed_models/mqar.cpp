#include "core/seed_models/mqar.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "core/seed_models/config_reader.h"
#include "core/seed_models/model_helpers.h"
#include "core/util/error.h"

namespace lsrl::seed_models {

namespace {

enum class MqarEvent : char { Write, Query, Distractor };

// The events in a uniformly shuffled order (Fisher–Yates with the portable Rng), the first
// write moved to the front so that every query has a written key to ask for.
std::vector<MqarEvent> mqarEventOrder(const MqarParams& p, Rng& rng) {
  std::vector<MqarEvent> events(sz(p.writes), MqarEvent::Write);
  events.insert(events.end(), sz(p.queries), MqarEvent::Query);
  events.insert(events.end(), sz(p.distractors()), MqarEvent::Distractor);
  for (size_t i = events.size(); i > 1; --i)
    std::swap(events[i - 1], events[sz(nextBelow(rng, static_cast<int>(i)))]);
  const auto first = std::find(events.begin(), events.end(), MqarEvent::Write);
  std::rotate(events.begin(), first, first + 1);
  return events;
}

}  // namespace

MqarParams mqarParams(const nlohmann::json& config) {
  const ConfigReader read{"lattice"};
  MqarParams p;
  const auto take = [&](const char* key, int& into) {
    if (config.is_object() && config.contains(key))
      into = read.integer(config[key], key, 0, kMaxElements);
  };
  take("mqar_keys", p.keys);
  take("mqar_values", p.values);
  take("mqar_writes", p.writes);
  take("mqar_queries", p.queries);
  take("mqar_noise", p.noise);
  take("mqar_length", p.length);
  return p;
}

void checkMqarParams(const MqarParams& p) {
  const auto fail = [](const std::string& what) { throw Error("mqar: " + what); };
  const auto count = [&](const char* key, int value, int lo) {
    if (value < lo || value > kMaxElements)
      fail(std::string(key) + " must be in " + std::to_string(lo) + "..1000000, got " +
           std::to_string(value));
  };
  count("mqar_keys", p.keys, 1);
  count("mqar_values", p.values, 1);
  count("mqar_writes", p.writes, 1);
  count("mqar_queries", p.queries, 0);
  count("mqar_noise", p.noise, 0);
  count("mqar_length", p.length, 1);
  const long long events = 2LL * p.writes + 2LL * p.queries;
  if (events > p.length)
    fail(std::to_string(p.writes) + " writes and " + std::to_string(p.queries) + " queries take " +
         std::to_string(events) + " tokens, more than mqar_length " + std::to_string(p.length));
  if (p.distractors() > 0 && p.noise == 0)
    fail(std::to_string(p.distractors()) +
         " tokens of mqar_length are left for distractors but mqar_noise is 0 (set "
         "mqar_length to " +
         std::to_string(events) + " or mqar_noise to at least 1)");
  const double entries = static_cast<double>(p.length) * p.vocabulary();
  if (entries > 1e7)
    fail("a sample of " + std::to_string(p.length) + " tokens of width " +
         std::to_string(p.vocabulary()) + " is over 10^7 entries");
}

void checkMqarWidths(const MqarParams& p, int dIn, int dOut) {
  if (dIn != p.vocabulary())
    throw Error("mqar: d_in " + std::to_string(dIn) + " must equal the vocabulary of " +
                std::to_string(p.vocabulary()) + " tokens (" + std::to_string(p.keys) + " keys + " +
                std::to_string(p.values) + " values + the query token + " +
                std::to_string(p.noise) + " noise)");
  if (dOut < p.keys + p.values)
    throw Error("mqar: d_out " + std::to_string(dOut) + " is less than the " +
                std::to_string(p.keys + p.values) +
                " key and value tokens the targets name (keys + values)");
}

MqarSample mqarSample(const MqarParams& p, uint64_t seed) {
  checkMqarParams(p);
  Rng rng(seed);
  const std::vector<MqarEvent> events = mqarEventOrder(p, rng);
  // The first writes take the keys in this random order, each once.
  std::vector<int> keyOrder(sz(p.keys));
  for (int k = 0; k < p.keys; ++k) keyOrder[sz(k)] = k;
  for (size_t i = keyOrder.size(); i > 1; --i)
    std::swap(keyOrder[i - 1], keyOrder[sz(nextBelow(rng, static_cast<int>(i)))]);

  std::vector<int> current(sz(p.keys), -1);  // value id per key, −1 before its first write
  std::vector<int> valueAt(sz(p.keys), -1);  // position of that value's token
  std::vector<int> written;                  // keys written so far, for the queries
  MqarSample s;
  s.tokens.reserve(sz(p.length));
  const auto put = [&](int token, int target, int age) {
    s.tokens.push_back(token);
    s.targets.push_back(target);
    s.ages.push_back(age);
  };
  int writes = 0;
  for (const MqarEvent event : events) {
    if (event == MqarEvent::Write) {
      const int key = writes < p.keys ? keyOrder[sz(writes)] : nextBelow(rng, p.keys);
      ++writes;
      int value = 0;
      const int old = current[sz(key)];
      if (old < 0 || p.values == 1) {
        value = nextBelow(rng, p.values);
      } else {  // uniform over the values other than the current one
        value = nextBelow(rng, p.values - 1);
        if (value >= old) ++value;
      }
      if (old < 0) written.push_back(key);
      current[sz(key)] = value;
      put(key, -1, -1);
      valueAt[sz(key)] = static_cast<int>(s.tokens.size());
      put(p.keys + value, -1, -1);
    } else if (event == MqarEvent::Query) {
      const int key = written[sz(nextBelow(rng, static_cast<int>(written.size())))];
      put(p.queryToken(), -1, -1);
      const int at = static_cast<int>(s.tokens.size());
      put(key, p.keys + current[sz(key)], at - valueAt[sz(key)] - 1);
    } else {
      put(p.queryToken() + 1 + nextBelow(rng, p.noise), -1, -1);
    }
  }
  return s;
}

}  // namespace lsrl::seed_models
