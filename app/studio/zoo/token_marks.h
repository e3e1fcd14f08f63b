// A strip of one cell per token under the Models tab's status line: green where the model's
// output picks the task's target, red where it does not, grey where the token has no
// target; the current token is outlined. Clicking a cell asks for that token.
#pragma once

#include <QWidget>
#include <vector>

namespace lsrl::studio {

class TokenMarks : public QWidget {
  Q_OBJECT

 public:
  explicit TokenMarks(QWidget* parent = nullptr);

  // Per token: 1 right, 0 wrong, −1 not scored (ModelRun::marks); empty hides the strip.
  void setMarks(const std::vector<int>& marks);
  const std::vector<int>& marks() const { return marks_; }
  void setCurrent(int token);  // −1: none
  // The cell of token i in widget coordinates (tests click it).
  QRect cellRect(int token) const;

  QSize sizeHint() const override;

 Q_SIGNALS:
  void tokenClicked(int token);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  std::vector<int> marks_;
  int current_ = -1;
};

}  // namespace lsrl::studio
