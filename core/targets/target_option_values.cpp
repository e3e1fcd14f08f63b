#include "core/targets/target_option_values.h"

#include <nlohmann/json.hpp>
#include <string_view>

#include "core/util/error.h"
#include "core/util/parse_integer.h"
#include "core/util/quote_input.h"

namespace lsrl {

namespace {

bool readsBox(Target target, const TargetOptions& o) {
  const bool positive = hasNonNegativeStates(target);
  return (positive && o.positivity == Positivity::Shift) ||
         (target == Target::Gru && o.gruUpdate == GruUpdate::Pytorch);
}

const char* const kPositivity = "positivity";
const char* const kBox = "box";
const char* const kHorizon = "horizon";
const char* const kGruUpdate = "gru-update";
const char* const kStacked = "stacked";
const char* const kHawkResidual = "hawk-residual";

std::string targetText(Target t) { return "--target " + std::string(targetName(t)); }

[[noreturn]] void notUsed(const std::string& option, Target t, const std::string& why) {
  throw Error("--" + option + " does not apply to " + targetText(t) + ": " + why);
}

bool parseOnOff(const std::string& option, const std::string& text) {
  if (text == "on") return true;
  if (text == "off") return false;
  throw Error("--" + option + " expects on or off, got " + quoteInput(text));
}

}  // namespace

const std::vector<std::string>& targetOptionNames() {
  static const std::vector<std::string> names = {kPositivity, kGruUpdate, kBox,
                                                 kHorizon,    kStacked,   kHawkResidual};
  return names;
}

// "LO,HI": two numbers of the exact scalar grammar with LO <= HI.
void parseBoxValue(const std::string& text, ShiftOptions& shift) {
  const size_t comma = text.find(',');
  if (comma == std::string::npos || text.find(',', comma + 1) != std::string::npos)
    throw Error("--box expects LO,HI (two numbers, e.g. -1,1), got " + quoteInput(text));
  auto number = [&text](std::string_view part, const char* which) {
    try {
      return Exact::parse(part);
    } catch (const Error& e) {
      throw Error("--box: " + std::string(which) + " \"" + std::string(part) + "\" of \"" + text +
                  "\" is not a number (" + e.what() + ")");
    }
  };
  const std::string_view all(text);
  shift.inputLo = number(all.substr(0, comma), "LO");
  shift.inputHi = number(all.substr(comma + 1), "HI");
  if (shift.inputHi < shift.inputLo)
    throw Error("--box expects LO <= HI, got " + quoteInput(text) + " (an empty box)");
}

TargetOptions parseTargetOptions(Target target, const TargetOptionValues& values) {
  auto given = [&values](const char* name) { return values.count(name) > 0; };
  auto value = [&values](const char* name) { return values.at(name); };
  TargetOptions o;
  const bool positive = hasNonNegativeStates(target);

  if (given(kPositivity)) {
    if (!positive)
      notUsed(kPositivity, target, "only rnn, gated-rnn, gru and lstm have non-negative states");
    const std::string p = value(kPositivity);
    const auto positivity = positivityFromName(p);
    if (!positivity) throw Error("--positivity expects split or shift, got " + quoteInput(p));
    o.positivity = *positivity;
  }
  if (given(kGruUpdate)) {
    if (target != Target::Gru) notUsed(kGruUpdate, target, "it sets the state update of gru");
    const auto u = gruUpdateFromName(value(kGruUpdate));
    if (!u)
      throw Error("--gru-update expects paper or pytorch, got " + quoteInput(value(kGruUpdate)));
    o.gruUpdate = *u;
  }
  if (given(kStacked)) {
    if (target != Target::Gru && target != Target::Lstm)
      notUsed(kStacked, target, "only gru and lstm have a stacked form");
    o.stacked = true;
  }
  if (given(kHawkResidual)) {
    if (target != Target::Hawk) notUsed(kHawkResidual, target, "it is a hawk option");
    o.hawkResidual = parseOnOff(kHawkResidual, value(kHawkResidual));
  }

  // Which of the box and the horizon this target with these options reads.
  const bool shift = positive && o.positivity == Positivity::Shift;
  const bool needsBox = readsBox(target, o);
  const std::string users =
      "the box and horizon are read by --positivity shift, gru's pytorch update and (the "
      "horizon only) hawk";
  if (given(kBox)) {
    if (!needsBox) notUsed(kBox, target, users);
    parseBoxValue(value(kBox), o.shift);
  }
  if (given(kHorizon)) {
    if (!needsBox && target != Target::Hawk) notUsed(kHorizon, target, users);
    o.shift.horizon = parseBoundedInt(value(kHorizon), "--horizon", 1, 1'000'000'000);
  }
  if (needsBox && (!given(kBox) || !given(kHorizon))) {
    const std::string missing = !given(kBox) && !given(kHorizon) ? "--box LO,HI and --horizon T"
                                : !given(kBox)                   ? "--box LO,HI"
                                                                 : "--horizon T";
    throw Error(targetText(target) +
                (shift ? " with --positivity shift" : " with --gru-update pytorch (the default)") +
                " needs " + missing + ": " +
                (shift ? "the shift c is only valid for inputs in the box up to T steps"
                       : "its bound K holds only for inputs in the box up to T steps; "
                         "or use --gru-update paper, which needs neither"));
  }
  return o;
}

void dropDomainWhereUnread(const std::optional<Target>& target, TargetOptionValues& values) {
  if (target) {
    TargetOptionValues others = values;
    others.erase(kBox);
    others.erase(kHorizon);
    // The target's own reading of its other options (positivity, gru update).
    const TargetOptions o = [&] {
      TargetOptions parsed;
      if (auto p = others.find(kPositivity); p != others.end())
        if (auto v = positivityFromName(p->second)) parsed.positivity = *v;
      if (auto u = others.find(kGruUpdate); u != others.end())
        if (auto v = gruUpdateFromName(u->second)) parsed.gruUpdate = *v;
      return parsed;
    }();
    if (readsBox(*target, o)) return;
    values.erase(kBox);
    if (*target != Target::Hawk) values.erase(kHorizon);
    return;
  }
  values.erase(kBox);
  values.erase(kHorizon);
}

nlohmann::json targetOptionValuesToJson(const TargetOptionValues& values) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, text] : values) j[name] = text;
  return j;
}

TargetOptionValues targetOptionValuesFromJson(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object())
    throw Error(where + ": target_options: expected an object, got " + std::string(j.type_name()));
  TargetOptionValues values;
  for (const auto& [name, text] : j.items()) {
    bool known = false;
    for (const std::string& n : targetOptionNames()) known = known || n == name;
    if (!known) throw Error(where + ": target_options: unknown option " + quoteInput(name));
    if (!text.is_string())
      throw Error(where + ": target_options." + name + ": expected a string, got " + text.dump());
    values[name] = text.get<std::string>();
  }
  return values;
}

}  // namespace lsrl
