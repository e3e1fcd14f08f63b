// Prompt builders for the paper's programs (core/programs/prompts.h, as `lsrl prompt`):
// more_ones from a 0/1 string; vec2vec from n, m, N, a target function and a query;
// tok2tok from a dictionary ("3 1 9 : 9 9 9; ...") and a query, or a seeded random one.
#pragma once

#include <QString>
#include <QWidget>

#include "core/executor/executor.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QStackedWidget;

namespace lsrl::studio {

class PromptBuilder : public QWidget {
  Q_OBJECT

 public:
  enum class Program { MoreOnes, Vec2vec, Tok2tok };
  explicit PromptBuilder(QWidget* parent = nullptr);

  void setProgram(Program p);
  Program program() const;
  // The tokens the current settings build; throws lsrl::Error naming the bad field.
  // `description` receives e.g. "tok2tok: query 4 2 6, expected 9 2 5".
  ExactSequence build(QString* description = nullptr) const;

  // Field access for tests and --screenshot.
  void setMoreOnes(const QString& bits);
  void setTok2tok(const QString& dictionary, const QString& query, int L);
  void setTok2tokRandom(int entries, int vocab, int seed);  // fills dictionary and query
  void setVec2vec(int n, int m, int N, const QString& query, int functionIndex, int seed);

 Q_SIGNALS:
  // The Build button: the tokens and their description.
  void built(const lsrl::ExactSequence& tokens, const QString& description);
  void failed(const QString& message);

 private:
  void setTokRandomFromFields();

  QComboBox* programBox_;
  QStackedWidget* pages_;
  QLineEdit* bits_;
  QSpinBox *vecN_, *vecM_, *vecCells_, *vecSeed_;
  QComboBox* vecFunction_;
  QLineEdit* vecQuery_;
  QSpinBox *tokL_, *tokK_, *tokV_, *tokSeed_;
  QLineEdit *tokDict_, *tokQuery_;
};

}  // namespace lsrl::studio
