#include "app/studio/window/startup_options.h"

#include <QRegularExpression>

namespace lsrl::studio {

const QStringList& studioViewNames() {
  static const QStringList names = {QStringLiteral("graph"),   QStringLiteral("debranch"),
                                    QStringLiteral("stepper"), QStringLiteral("trajectory"),
                                    QStringLiteral("heatmap"), QStringLiteral("noise")};
  return names;
}

const QStringList& studioModelViewNames() {
  static const QStringList names = {QStringLiteral("lattice"), QStringLiteral("gateloop"),
                                    QStringLiteral("gates"), QStringLiteral("looped")};
  return names;
}

QString startupUsage() {
  return QStringLiteral(
      "usage: lsrl-studio [FILE] [--example NAME] [--screenshot OUT.png]\n"
      "                   [--view graph|debranch|stepper|trajectory|heatmap|noise|\n"
      "                           lattice|gateloop|gates|looped] [--step N]\n"
      "                   [--model mingru|minlstm|gateloop|lattice|looped [--task T]]\n"
      "                   [--size WxH]\n"
      "                   [--no-recovery]\n"
      "       lsrl-studio --bench live FILE [--fit prompt|declared]\n"
      "  FILE              an LSRL graph (.json) to open\n"
      "  --example NAME    open an example instead (\"tok2tok_L3_direct.json\" or its menu title)\n"
      "  --screenshot OUT  render the window (default 1600x1000) to OUT.png and exit\n"
      "  --view V          the view to show (default graph)\n"
      "  --model NAME      run a seed model (default config, seed 0) in the Models tab and\n"
      "                    show its view (lattice, gateloop, gates or looped)\n"
      "  --task T          the model's synthetic task (default: its first)\n"
      "  --step N          debranch: the compile step; stepper, trajectory: the token step;\n"
      "                    model views: the token (looped: the loop)\n"
      "  --size WxH        window size for --screenshot\n"
      "  --no-recovery     do not offer work left by a crashed session\n"
      "  --bench live      offscreen: make 50 edits of FILE's program and time the Live\n"
      "                    panel's answers; prints one JSON line (docs/explorer.md)\n"
      "  --fit D           --bench live: the constants fitted to the prompt's domain (default)\n"
      "                    or to the file's declared one\n");
}

std::optional<StartupOptions> parseStartupOptions(const QStringList& arguments, QString* error) {
  StartupOptions o;
  auto fail = [&](const QString& message) {
    *error = message;
    return std::nullopt;
  };
  for (int i = 1; i < arguments.size(); ++i) {
    const QString& a = arguments[i];
    auto value = [&](QString* out) {
      if (i + 1 >= arguments.size()) return false;
      *out = arguments[++i];
      return true;
    };
    QString v;
    if (a == QLatin1String("--screenshot")) {
      if (!value(&o.screenshot))
        return fail(QStringLiteral("--screenshot needs an output file (OUT.png)"));
    } else if (a == QLatin1String("--example")) {
      if (!value(&o.example)) return fail(QStringLiteral("--example needs a name"));
    } else if (a == QLatin1String("--view")) {
      const QStringList all = studioViewNames() + studioModelViewNames();
      if (!value(&o.view) || !all.contains(o.view)) {
        return fail(QStringLiteral("--view needs one of %1, got '%2'")
                        .arg(all.join(QStringLiteral(", ")), o.view));
      }
    } else if (a == QLatin1String("--model")) {
      if (!value(&o.model)) return fail(QStringLiteral("--model needs a model name"));
    } else if (a == QLatin1String("--task")) {
      if (!value(&o.task)) return fail(QStringLiteral("--task needs a task name"));
    } else if (a == QLatin1String("--step")) {
      bool ok = false;
      if (value(&v)) o.step = v.toInt(&ok);
      if (!ok || o.step < 0)
        return fail(QStringLiteral("--step needs a step number >= 0, got '%1'").arg(v));
    } else if (a == QLatin1String("--size")) {
      static const QRegularExpression re(QStringLiteral("^(\\d{2,5})x(\\d{2,5})$"));
      const auto m = value(&v) ? re.match(v) : QRegularExpressionMatch();
      if (!m.hasMatch())
        return fail(QStringLiteral("--size needs WIDTHxHEIGHT such as 1600x1000, got '%1'").arg(v));
      o.size = QSize(m.captured(1).toInt(), m.captured(2).toInt());
      if (o.size.width() > 16384 || o.size.height() > 16384) {
        return fail(QStringLiteral("--size %1 is larger than 16384 pixels a side").arg(v));
      }
    } else if (a == QLatin1String("--bench")) {
      if (!value(&o.bench) || o.bench != QLatin1String("live"))
        return fail(QStringLiteral("--bench needs a benchmark name (live), got '%1'").arg(o.bench));
    } else if (a == QLatin1String("--fit")) {
      if (!value(&o.benchFit) ||
          (o.benchFit != QLatin1String("prompt") && o.benchFit != QLatin1String("declared")))
        return fail(QStringLiteral("--fit needs prompt or declared, got '%1'").arg(o.benchFit));
    } else if (a == QLatin1String("--no-recovery")) {
      o.recovery = false;
    } else if (a.startsWith(QLatin1String("--"))) {
      return fail(QStringLiteral("unknown option %1").arg(a));
    } else if (o.file.isEmpty()) {
      o.file = a;
    } else {
      return fail(QStringLiteral("only one file can be opened, got '%1' and '%2'").arg(o.file, a));
    }
  }
  if (!o.file.isEmpty() && !o.example.isEmpty())
    return fail(QStringLiteral("give a FILE or --example, not both"));
  if (!o.bench.isEmpty() && o.file.isEmpty() && o.example.isEmpty())
    return fail(QStringLiteral("--bench %1 needs a FILE (or --example NAME) to edit").arg(o.bench));
  if (!o.benchFit.isEmpty() && o.bench.isEmpty())
    return fail(QStringLiteral("--fit goes with --bench live"));
  if (!o.bench.isEmpty() && !o.screenshot.isEmpty())
    return fail(QStringLiteral("give --bench or --screenshot, not both"));
  if (!o.task.isEmpty() && o.model.isEmpty())
    return fail(QStringLiteral("--task needs --model (the model whose task it is)"));
  if (studioModelViewNames().contains(o.view) && o.model.isEmpty()) {
    return fail(QStringLiteral("--view %1 shows a seed model's run: add --model NAME").arg(o.view));
  }
  return o;
}

}  // namespace lsrl::studio
