// Helpers shared by the Models tab's view tests (zoo_*_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <QImage>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <memory>
#include <string>

#include "app/studio/zoo/model_view.h"
#include "core/util/error.h"
#include "studio/studio_test_util.h"

namespace lsrl::studio::test {

// Writes every entry of the view's Export menu into `dir` (file names from the labels)
// and checks each file: SVGs parse, PNGs show more than a few colours. Returns how many.
inline int writeEveryExport(ModelView& view, const QTemporaryDir& dir) {
  int written = 0;
  for (const ViewExport& e : view.exports()) {
    const QString path = dir.filePath(e.label.simplified().remove(QLatin1Char(' ')) + e.suffix);
    e.write(path);
    ++written;
    if (e.suffix == QLatin1String(".svg")) {
      EXPECT_TRUE(QSvgRenderer(path).isValid()) << e.label.toStdString();
    } else if (e.suffix == QLatin1String(".png")) {
      EXPECT_GT(distinctColours(QImage(path)), 3) << e.label.toStdString();
    }
  }
  return written;
}

// The error the view gives for a run whose trace has no arrays (empty if none).
inline std::string errorForEmptyTrace(ModelView& view, const ModelRun& run) {
  auto broken = std::make_shared<ModelRun>(run);
  broken->trace = models::Trace();
  try {
    view.setRun(broken);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

}  // namespace lsrl::studio::test
