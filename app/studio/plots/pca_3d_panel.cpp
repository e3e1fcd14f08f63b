#include "app/studio/plots/pca_3d_panel.h"

#include <QtDataVisualization/qutils.h>

#include <Q3DCamera>
#include <Q3DScatter>
#include <Q3DScene>
#include <QGuiApplication>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>

namespace lsrl::studio {

namespace {
QVector3D point(const PcaResult& pca, int t) {
  // Data Visualization's y axis is the vertical one: PC3 goes up.
  return QVector3D(static_cast<float>(coord(pca, t, 0)), static_cast<float>(coord(pca, t, 2)),
                   static_cast<float>(coord(pca, t, 1)));
}
}  // namespace

Q3DScatter* newScatter3d() {
  const QSurfaceFormat format = qDefaultSurfaceFormat(false);
  return new Q3DScatter(&format);
}

bool Pca3dPanel::available() { return QGuiApplication::platformName() == QLatin1String("xcb"); }

Pca3dPanel::Pca3dPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  note_ = new QLabel;
  note_->setAlignment(Qt::AlignCenter);
  if (!available()) {
    note_->setText(tr("3D needs a display (the platform is '%1', not xcb).")
                       .arg(QGuiApplication::platformName()));
    layout->addWidget(note_, 1);
    return;
  }
  graph_ = newScatter3d();
  graph_->axisX()->setTitle(tr("PC1"));
  graph_->axisY()->setTitle(tr("PC3"));
  graph_->axisZ()->setTitle(tr("PC2"));
  for (QValue3DAxis* axis : {graph_->axisX(), graph_->axisY(), graph_->axisZ()})
    axis->setTitleVisible(true);
  path_ = new QScatter3DSeries;
  path_->setItemSize(0.06f);
  path_->setBaseColor(QColor(33, 102, 172));
  current_ = new QScatter3DSeries;
  current_->setItemSize(0.15f);
  current_->setBaseColor(QColor(200, 30, 40));
  graph_->addSeries(path_);
  graph_->addSeries(current_);
  graph_->scene()->activeCamera()->setCameraPreset(Q3DCamera::CameraPresetIsometricLeftHigh);
  container_ = QWidget::createWindowContainer(graph_, this);
  layout->addWidget(container_, 1);
  layout->addWidget(note_);
}

void Pca3dPanel::setPca(const PcaResult& pca, const QString& title) {
  pca_ = pca;
  title_ = title;
  note_->setText(available() ? tr("%1: PC1 %2%, PC2 %3%, PC3 %4% of the variance")
                                   .arg(title)
                                   .arg(100 * pca.explained(0), 0, 'f', 1)
                                   .arg(100 * pca.explained(1), 0, 'f', 1)
                                   .arg(100 * pca.explained(2), 0, 'f', 1)
                             : note_->text());
  if (!graph_) return;
  auto* items = new QScatterDataArray;
  for (int t = 0; t < static_cast<int>(pca_.projected.size()); ++t)
    items->append(QScatterDataItem(point(pca_, t)));
  path_->dataProxy()->resetArray(items);
  setStep(step_);
}

void Pca3dPanel::setStep(int step) {
  step_ = step;
  if (!graph_) return;
  auto* items = new QScatterDataArray;
  const int T = static_cast<int>(pca_.projected.size());
  if (T > 0) items->append(QScatterDataItem(point(pca_, std::clamp(step, 0, T - 1))));
  current_->dataProxy()->resetArray(items);
}

QImage Pca3dPanel::renderImage(QSize size) {
  if (!graph_) return {};
  return graph_->renderToImage(0, size);
}

StateSeries Pca3dPanel::points() const {
  StateSeries s;
  s.title = title_.toStdString() + " (PCA)";
  for (int k = 0; k < 3; ++k) s.labels.push_back("PC" + std::to_string(k + 1));
  for (int t = 0; t < static_cast<int>(pca_.projected.size()); ++t)
    s.values.push_back({coord(pca_, t, 0), coord(pca_, t, 1), coord(pca_, t, 2)});
  return s;
}

}  // namespace lsrl::studio
