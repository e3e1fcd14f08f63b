// Axis ticks that stay clear of a 3D graph's corners. Data Visualization labels a value
// axis at its segment ends, so the range's ends carry labels, and at every corner of the
// box two axes' end labels overlap ("-1.1 -1.1"). The formatter here labels round values
// strictly inside the range instead, which is padded by part of a step at each end.
#pragma once

#include <QValue3DAxisFormatter>
#include <vector>

namespace lsrl::studio {

class InsetAxisTicks : public QValue3DAxisFormatter {
  Q_OBJECT

 public:
  explicit InsetAxisTicks(QObject* parent = nullptr);

  // The values labelled (inside the axis range) and how many decimals they show.
  void setTicks(std::vector<double> ticks, int decimals);

 protected:
  QValue3DAxisFormatter* createNewInstance() const override;
  void populateCopy(QValue3DAxisFormatter& copy) const override;
  void recalculate() override;

 private:
  std::vector<double> ticks_;
  int decimals_ = 0;
};

// Sets `axis` to cover [lo, hi] with a few round labels (1, 2 or 5 × 10^k apart), none at
// the range's ends, so no label meets another axis's at a corner.
void setInsetAxisRange(QValue3DAxis* axis, double lo, double hi);

}  // namespace lsrl::studio
