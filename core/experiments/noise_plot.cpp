#include "core/experiments/noise_plot.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

#include "core/util/error.h"

namespace lsrl {

namespace {

constexpr double kWidth = 720, kHeight = 460;
constexpr double kLeft = 90, kRight = 200, kTop = 40, kBottom = 60;  // margins
constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                   "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f"};
// Dash patterns as well as colours: variants often coincide (0 % at σ = 0).
constexpr const char* kDashes[] = {"none", "7 3", "2 3", "9 3 2 3", "4 4"};

std::string escapeXml(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string num(double x) {
  std::ostringstream os;
  os.precision(1);
  os << std::fixed << x;
  return os.str();
}

std::string powerOfTen(int e) { return e == 0 ? "1" : "1e" + std::to_string(e); }

}  // namespace

std::string shortestDouble(double x) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

std::string noiseCsv(NoiseProgram program, bool optimize, const std::vector<NoiseRow>& rows) {
  std::string out = "program,variant,optimize,sigma,seed,metric\n";
  for (const NoiseRow& r : rows) {
    out += std::string(noiseProgramName(program)) + "," + std::string(conditionalName(r.variant)) +
           "," + (optimize ? "true" : "false") + "," + shortestDouble(r.sigma) + "," +
           std::to_string(r.seed) + "," + shortestDouble(r.metric) + "\n";
  }
  return out;
}

std::vector<NoiseRow> parseNoiseCsv(const std::string& text, NoiseProgram program, bool& optimize) {
  std::istringstream in(text);
  std::string line;
  std::vector<NoiseRow> rows;
  int lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (lineNo == 1 || line.empty()) continue;  // the header
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string item; std::getline(fields, item, ',');) f.push_back(item);
    const std::string where = "noise CSV line " + std::to_string(lineNo) + ": ";
    if (f.size() != 6) {
      throw Error(where + "expected 6 fields (program,variant,optimize,sigma,seed,metric), got " +
                  std::to_string(f.size()));
    }
    if (f[0] != noiseProgramName(program)) {
      throw Error(where + "program \"" + f[0] + "\", expected " +
                  std::string(noiseProgramName(program)));
    }
    NoiseRow r;
    try {
      r.variant = parseConditional(f[1]);
      r.sigma = std::stod(f[3]);
      r.seed = std::stoull(f[4]);
      r.metric = std::stod(f[5]);
    } catch (const Error& e) {
      throw Error(where + e.what());
    } catch (const std::exception&) {
      throw Error(where + "sigma, seed and metric must be numbers");
    }
    optimize = f[2] == "true";
    rows.push_back(r);
  }
  if (rows.empty()) throw Error("noise CSV has no rows");
  return rows;
}

std::string noisePlotSvg(const std::vector<NoiseSummaryRow>& summary,
                         const NoisePlotOptions& options) {
  // σ positions: 0 at its own tick, positive σ on a log scale to its right.
  std::vector<double> sigmas;
  std::vector<Conditional> variants;
  for (const NoiseSummaryRow& r : summary) {
    if (std::find(sigmas.begin(), sigmas.end(), r.sigma) == sigmas.end()) sigmas.push_back(r.sigma);
    if (std::find(variants.begin(), variants.end(), r.variant) == variants.end())
      variants.push_back(r.variant);
  }
  std::sort(sigmas.begin(), sigmas.end());
  const bool hasZero = !sigmas.empty() && sigmas.front() == 0;
  double lo = 0, hi = 0;
  bool anyPositive = false;
  for (double s : sigmas) {
    if (s <= 0) continue;
    const double l = std::log10(s);
    lo = anyPositive ? std::min(lo, l) : l;
    hi = anyPositive ? std::max(hi, l) : l;
    anyPositive = true;
  }
  lo = std::floor(lo);
  hi = std::max(std::ceil(hi), lo + 1);
  const double plotW = kWidth - kLeft - kRight, plotH = kHeight - kTop - kBottom;
  const double zeroX = kLeft + 20;
  const double logX0 = hasZero ? kLeft + 70 : kLeft + 20, logX1 = kLeft + plotW - 20;
  auto xOf = [&](double s) {
    if (s <= 0) return zeroX;
    return logX0 + (std::log10(s) - lo) / (hi - lo) * (logX1 - logX0);
  };

  // y range
  double yLo = 0, yHi = 100;
  if (options.logY) {
    bool any = false;
    for (const NoiseSummaryRow& r : summary) {
      if (!(r.mean > 0) || !std::isfinite(r.mean)) continue;
      const double l = std::log10(r.mean);
      yLo = any ? std::min(yLo, l) : l;
      yHi = any ? std::max(yHi, l) : l;
      any = true;
    }
    if (!any) yLo = 0, yHi = 1;
    yLo = std::floor(yLo);
    yHi = std::max(std::ceil(yHi), yLo + 1);
  } else {
    for (const NoiseSummaryRow& r : summary) {
      if (std::isfinite(r.mean)) yHi = std::max(yHi, r.mean);
    }
  }
  auto yOf = [&](double v) {
    double t;
    if (options.logY) {
      t = (v > 0 && std::isfinite(v)) ? (std::log10(v) - yLo) / (yHi - yLo) : (v > 0 ? 1.0 : 0.0);
    } else {
      t = std::isfinite(v) ? (v - yLo) / (yHi - yLo) : 1.0;
    }
    t = std::clamp(t, 0.0, 1.0);
    return kTop + plotH * (1 - t);
  };

  std::ostringstream os;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
     << "\" viewBox=\"0 0 " << kWidth << " " << kHeight
     << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  os << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  os << "<text x=\"" << num(kLeft + plotW / 2) << "\" y=\"22\" text-anchor=\"middle\" "
     << "font-size=\"15\">" << escapeXml(options.title) << "</text>\n";
  // frame
  os << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << plotW << "\" height=\""
     << plotH << "\" fill=\"none\" stroke=\"black\"/>\n";
  // x ticks: σ = 0, then every power of ten
  const double axisY = kTop + plotH;
  auto xTick = [&](double x, const std::string& label) {
    os << "<line x1=\"" << num(x) << "\" y1=\"" << num(axisY) << "\" x2=\"" << num(x) << "\" y2=\""
       << num(axisY + 5) << "\" stroke=\"black\"/>\n";
    os << "<text x=\"" << num(x) << "\" y=\"" << num(axisY + 19) << "\" text-anchor=\"middle\">"
       << escapeXml(label) << "</text>\n";
  };
  if (hasZero) {
    xTick(zeroX, "0");
    // axis break between σ = 0 and the log scale
    const double bx = (zeroX + logX0) / 2;
    os << "<path d=\"M" << num(bx - 6) << " " << num(axisY + 6) << " L" << num(bx - 2) << " "
       << num(axisY - 6) << " M" << num(bx + 2) << " " << num(axisY + 6) << " L" << num(bx + 6)
       << " " << num(axisY - 6) << "\" stroke=\"black\"/>\n";
  }
  if (anyPositive) {
    for (int e = static_cast<int>(lo); e <= static_cast<int>(hi); ++e) {
      xTick(xOf(std::pow(10.0, e)), powerOfTen(e));
    }
  }
  os << "<text x=\"" << num(kLeft + plotW / 2) << "\" y=\"" << num(kHeight - 15)
     << "\" text-anchor=\"middle\">noise σ (absolute, log scale; 0 at the left)</text>\n";
  // y ticks and grid
  auto yTick = [&](double v, const std::string& label) {
    const double y = yOf(v);
    os << "<line x1=\"" << kLeft << "\" y1=\"" << num(y) << "\" x2=\"" << num(kLeft + plotW)
       << "\" y2=\"" << num(y) << "\" stroke=\"#dddddd\"/>\n";
    os << "<text x=\"" << num(kLeft - 6) << "\" y=\"" << num(y + 4) << "\" text-anchor=\"end\">"
       << escapeXml(label) << "</text>\n";
  };
  if (options.logY) {
    const int step = std::max(1, static_cast<int>((yHi - yLo) / 8));
    for (int e = static_cast<int>(yLo); e <= static_cast<int>(yHi); e += step) {
      yTick(std::pow(10.0, e), powerOfTen(e));
    }
  } else {
    const double step = yHi > 100 ? std::pow(10.0, std::floor(std::log10(yHi))) : 20;
    for (double v = 0; v <= yHi + 1e-9; v += step) yTick(v, shortestDouble(v));
  }
  os << "<text transform=\"translate(22," << num(kTop + plotH / 2)
     << ") rotate(-90)\" text-anchor=\"middle\">" << escapeXml(options.yLabel) << "</text>\n";
  // one line per variant
  for (size_t vi = 0; vi < variants.size(); ++vi) {
    const char* color = kColors[vi % std::size(kColors)];
    const char* dash = kDashes[vi % std::size(kDashes)];
    std::vector<std::pair<double, double>> pts;
    for (const NoiseSummaryRow& r : summary) {
      if (r.variant == variants[vi]) pts.emplace_back(r.sigma, r.mean);
    }
    std::sort(pts.begin(), pts.end());
    os << "<polyline fill=\"none\" stroke=\"" << color
       << "\" stroke-width=\"2\" stroke-dasharray=\"" << dash << "\" points=\"";
    for (const auto& [s, v] : pts) os << num(xOf(s)) << "," << num(yOf(v)) << " ";
    os << "\"/>\n";
    for (const auto& [s, v] : pts) {
      os << "<circle cx=\"" << num(xOf(s)) << "\" cy=\"" << num(yOf(v)) << "\" r=\"3.5\" fill=\""
         << color << "\"><title>" << conditionalName(variants[vi]) << ", σ=" << shortestDouble(s)
         << ": " << shortestDouble(v) << "</title></circle>\n";
    }
    const double ly = kTop + 14 + 20 * static_cast<double>(vi);
    const double lx = kLeft + plotW + 15;
    os << "<line x1=\"" << num(lx) << "\" y1=\"" << num(ly) << "\" x2=\"" << num(lx + 24)
       << "\" y2=\"" << num(ly) << "\" stroke=\"" << color
       << "\" stroke-width=\"2\" stroke-dasharray=\"" << dash << "\"/>\n";
    os << "<text x=\"" << num(lx + 30) << "\" y=\"" << num(ly + 4) << "\">"
       << conditionalName(variants[vi]) << "</text>\n";
  }
  os << "</svg>\n";
  return os.str();
}

}  // namespace lsrl
