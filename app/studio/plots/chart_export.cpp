#include "app/studio/plots/chart_export.h"

#include <QApplication>
#include <QBuffer>
#include <QChartView>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>
#include <cstdlib>
#include <sstream>

#include "core/experiments/noise_plot.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace lsrl::studio {

namespace {

std::string quoted(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// One CSV record (quotes per RFC 4180, no embedded newlines).
std::vector<std::string> splitCsvLine(const std::string& line, int lineNo) {
  std::vector<std::string> fields;
  std::string field;
  bool inQuotes = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (inQuotes) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        inQuotes = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      inQuotes = true;
    } else if (c == ',') {
      fields.push_back(field);
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  if (inQuotes) throw Error("CSV line " + std::to_string(lineNo) + ": unterminated quote");
  fields.push_back(field);
  return fields;
}

}  // namespace

QImage renderChart(QChartView* view, QSize size) {
  if (size.isEmpty()) size = view->size();
  QImage image(size, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::white);
  QPainter painter(&image);
  painter.setRenderHint(QPainter::Antialiasing);
  view->render(&painter, QRectF(QPointF(0, 0), QSizeF(size)), view->rect());
  return image;
}

void exportChartPng(QChartView* view, const QString& path, QSize size) {
  exportImagePng(renderChart(view, size), path);
}

void exportSvg(const QString& path, QSize size, const QString& title,
               const std::function<void(QPainter&)>& paint) {
  QBuffer buffer;
  buffer.open(QIODevice::WriteOnly);
  QSvgGenerator generator;
  generator.setOutputDevice(&buffer);
  generator.setSize(size);
  generator.setViewBox(QRect(QPoint(0, 0), size));
  generator.setTitle(title);
  generator.setDescription(QStringLiteral("Exported by LSRL Studio"));
  {
    QPainter painter(&generator);
    paint(painter);
  }
  writeFileAtomically(
      path.toStdString(),
      std::string_view(buffer.data().constData(), static_cast<size_t>(buffer.data().size())));
}

void exportChartSvg(QChartView* view, const QString& path, const QString& title) {
  exportSvg(path, view->size(), title.isEmpty() ? view->chart()->title() : title,
            [view](QPainter& painter) {
              view->render(&painter, QRectF(QPointF(0, 0), QSizeF(view->size())), view->rect());
            });
}

void exportWidgetPng(QWidget* widget, const QString& path) {
  exportImagePng(widget->grab().toImage(), path);
}

void exportWidgetSvg(QWidget* widget, const QString& path, const QString& title) {
  exportSvg(path, widget->size(), title, [widget](QPainter& p) { widget->render(&p); });
}

void exportImagePng(const QImage& image, const QString& path) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly))
    throw Error("cannot write " + path.toStdString() + ": " + file.errorString().toStdString());
  if (!image.save(&file, "PNG")) {
    file.cancelWriting();
    throw Error("cannot encode a PNG for " + path.toStdString());
  }
  if (!file.commit())
    throw Error("cannot write " + path.toStdString() + ": " + file.errorString().toStdString());
}

std::string seriesCsv(const StateSeries& series) {
  std::string out = "step";
  for (const std::string& label : series.labels) {
    out += ',';
    out += quoted(label);
  }
  out += "\n";
  for (int t = 0; t < series.steps(); ++t) {
    out += std::to_string(t);
    for (double v : series.values[static_cast<size_t>(t)]) {
      out += ',';
      out += shortestDouble(v);
    }
    out += "\n";
  }
  return out;
}

void exportSeriesCsv(const StateSeries& series, const QString& path) {
  writeFileAtomically(path.toStdString(), seriesCsv(series));
}

StateSeries parseSeriesCsv(const std::string& text) {
  StateSeries series;
  std::istringstream in(text);
  std::string line;
  int lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    if (line.empty() || line == "\r") continue;
    std::vector<std::string> fields = splitCsvLine(line, lineNo);
    if (lineNo == 1) {
      if (fields.empty() || fields.front() != "step")
        throw Error("CSV line 1: expected a header starting with 'step', got '" + line + "'");
      series.labels.assign(fields.begin() + 1, fields.end());
      continue;
    }
    if (fields.size() != series.labels.size() + 1)
      throw Error("CSV line " + std::to_string(lineNo) + ": expected " +
                  std::to_string(series.labels.size() + 1) + " fields, got " +
                  std::to_string(fields.size()));
    std::vector<double> row;
    for (size_t i = 1; i < fields.size(); ++i) {
      char* end = nullptr;
      const double v = std::strtod(fields[i].c_str(), &end);
      if (fields[i].empty() || *end != '\0')
        throw Error("CSV line " + std::to_string(lineNo) + ", column " + std::to_string(i + 1) +
                    ": expected a number, got '" + fields[i] + "'");
      row.push_back(v);
    }
    series.values.push_back(std::move(row));
  }
  if (lineNo == 0) throw Error("CSV: empty text, expected a header line");
  return series;
}

void prepareForGrab(QWidget* widget, QSize size) {
  widget->resize(size);
  if (!widget->isVisible()) {
    widget->setAttribute(Qt::WA_DontShowOnScreen);
    widget->show();
  }
  QApplication::processEvents();
}

}  // namespace lsrl::studio
