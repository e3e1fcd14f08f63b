#include "app/studio/zoo/lattice_sphere_2d.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

#include "app/studio/plots/colour_map.h"
#include "app/studio/zoo/lattice_geometry.h"

namespace lsrl::studio {

namespace {

// Radius of the drawing's reach in data units: the unit sphere plus room for the
// orthogonal parts drawn from the slots' tips.
constexpr double kSphereReach = 1.45;

void arrow(QPainter& p, QPointF from, QPointF to, double head) {
  p.drawLine(from, to);
  const QPointF d = to - from;
  const double len = std::hypot(d.x(), d.y());
  if (len < 1e-6) return;
  const QPointF u = d / len, n(-u.y(), u.x());
  const double h = std::min(head, 0.45 * len);
  QPolygonF tip;
  tip << to << to - u * h + n * (0.45 * h) << to - u * h - n * (0.45 * h);
  const QBrush old = p.brush();
  p.setBrush(p.pen().color());
  QPen pen = p.pen();
  pen.setStyle(Qt::SolidLine);
  p.save();
  p.setPen(pen);
  p.drawPolygon(tip);
  p.restore();
  p.setBrush(old);
}

}  // namespace

LatticeSphere2d::LatticeSphere2d(QWidget* parent) : QWidget(parent) {
  setAttribute(Qt::WA_OpaquePaintEvent);
}

void LatticeSphere2d::setLattice(const LatticeGeometry* geometry) {
  geometry_ = geometry;
  update();
}

void LatticeSphere2d::setStep(int step) {
  if (step == step_) return;
  step_ = step;
  update();
}

void LatticeSphere2d::setAxes(int horizontal, int vertical) {
  axisH_ = std::clamp(horizontal, 0, 2);
  axisV_ = std::clamp(vertical, 0, 2);
  update();
}

QPointF LatticeSphere2d::mapPoint(double h, double v, const QRectF& rect) const {
  const double side = std::min(rect.width(), rect.height() - 40);
  const double scale = side / (2 * kSphereReach);
  const QPointF centre(rect.center().x(), rect.top() + 30 + (rect.height() - 40) / 2);
  return {centre.x() + h * scale, centre.y() - v * scale};
}

void LatticeSphere2d::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.fillRect(rect(), palette().base());
  paintFrame(painter, QRectF(rect()));
}

void LatticeSphere2d::paintFrame(QPainter& p, const QRectF& rect) const {
  p.save();
  p.setRenderHint(QPainter::Antialiasing);
  p.setClipRect(rect);
  QFont font = p.font();
  font.setPointSizeF(9);
  p.setFont(font);
  if (geometry_ == nullptr || geometry_->steps() == 0) {
    p.setPen(QColor(90, 90, 90));
    p.drawText(rect, Qt::AlignCenter, tr("No Lattice run: run the model in the zoo panel."));
    p.restore();
    return;
  }
  const LatticeGeometry& g = *geometry_;
  const LatticeFrame f = g.frame(step_);
  auto at = [&](const Point3& q) {
    return mapPoint(q[static_cast<size_t>(axisH_)], q[static_cast<size_t>(axisV_)], rect);
  };
  const QPointF origin = mapPoint(0, 0, rect);
  const double unit = mapPoint(1, 0, rect).x() - origin.x();
  const double head = std::max(7.0, unit * 0.07);

  // Title and axes.
  p.setPen(QColor(40, 40, 40));
  const QString axes = QString::fromStdString(g.axisName(axisH_) + " / " + g.axisName(axisV_));
  QString title = tr("Slots on the unit sphere after token %1 (of 0–%2)  (%3")
                      .arg(f.step)
                      .arg(g.steps() - 1)
                      .arg(axes);
  if (g.projected()) {
    title += tr(": %1% + %2% of the slots' energy")
                 .arg(100 * g.explained(axisH_), 0, 'f', 1)
                 .arg(100 * g.explained(axisV_), 0, 'f', 1);
  }
  title += QLatin1Char(')');
  p.drawText(QRectF(rect.left() + 6, rect.top() + 4, rect.width() - 12, 22),
             Qt::AlignLeft | Qt::AlignVCenter, title);
  p.setPen(QPen(QColor(200, 200, 200), 1));
  p.drawLine(mapPoint(-kSphereReach, 0, rect), mapPoint(kSphereReach, 0, rect));
  p.drawLine(mapPoint(0, -kSphereReach, rect), mapPoint(0, kSphereReach, rect));
  p.setPen(QColor(120, 120, 120));
  p.drawText(mapPoint(kSphereReach, 0, rect) + QPointF(-24, -4),
             QString::fromStdString(g.axisName(axisH_)));
  p.drawText(mapPoint(0, kSphereReach, rect) + QPointF(4, 12),
             QString::fromStdString(g.axisName(axisV_)));
  // The sphere's outline (the unit circle of this projection).
  p.setPen(QPen(QColor(150, 150, 150), 1.2));
  p.setBrush(QColor(240, 244, 250));
  p.drawEllipse(origin, unit, unit);
  p.setBrush(Qt::NoBrush);

  // Trails up to this step, the arcs, slots before and after, the orthogonal parts.
  for (int i = 0; i < g.slots(); ++i) {
    const size_t si = static_cast<size_t>(i);
    const QColor c = categoricalColour(i);
    QPolygonF trail;
    trail << at(g.initial(i));
    for (int t = 0; t <= f.step; ++t) trail << at(g.trail(i)[static_cast<size_t>(t)]);
    QColor faint = c;
    faint.setAlpha(70);
    p.setPen(QPen(faint, 1.2));
    p.drawPolyline(trail);
    QColor mid = c;
    mid.setAlpha(110);
    p.setPen(QPen(mid, 1.4, Qt::DotLine));
    arrow(p, origin, at(f.before[si]), head * 0.8);
    QPolygonF arc;
    for (const Point3& q : f.arcs[si]) arc << at(q);
    p.setPen(QPen(c, 2.6));
    p.drawPolyline(arc);
    p.setPen(QPen(c, 1.6, Qt::DashLine));
    const Point3 tip{f.before[si][0] + f.orthogonal[si][0], f.before[si][1] + f.orthogonal[si][1],
                     f.before[si][2] + f.orthogonal[si][2]};
    arrow(p, at(f.before[si]), at(tip), head * 0.8);
    p.setPen(QPen(c, 2.4));
    arrow(p, origin, at(f.after[si]), head);
    p.setPen(c.darker(130));
    p.drawText(at(f.after[si]) + QPointF(5, -5), QStringLiteral("s%1").arg(i + 1));
  }
  // The incoming direction.
  if (f.incomingNorm > 0) {
    p.setPen(QPen(QColor(20, 20, 20), 2.2));
    arrow(p, origin, at(f.incoming), head);
    p.drawText(at(f.incoming) + QPointF(5, 12), QStringLiteral("h"));
  }
  // Legend.
  p.setPen(QColor(70, 70, 70));
  const QString legend =
      tr("solid: slot after token t · dotted: before · thick arc: the turn · dashed: h's part "
         "orthogonal to the slot (from its old tip) · black: incoming h/‖h‖, ‖h‖ = %1")
          .arg(f.incomingNorm, 0, 'g', 4);
  p.drawText(QRectF(rect.left() + 6, rect.bottom() - 34, rect.width() - 12, 32),
             Qt::AlignLeft | Qt::AlignBottom | Qt::TextWordWrap, legend);
  p.restore();
}

}  // namespace lsrl::studio
