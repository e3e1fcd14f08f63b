#include "app/studio/stepper/prompt_builder.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <cmath>

#include "core/programs/prompts.h"
#include "core/util/error.h"

namespace lsrl::studio {

namespace {

QSpinBox* spin(int lo, int hi, int value, QWidget* parent) {
  auto* s = new QSpinBox(parent);
  s->setRange(lo, hi);
  s->setValue(value);
  return s;
}

// "4 2 6" or "4,2,6" -> integers.
std::vector<int> parseInts(const QString& text, const std::string& what) {
  std::vector<int> out;
  const QStringList parts = QString(text).replace(',', ' ').split(' ', Qt::SkipEmptyParts);
  for (const QString& p : parts) {
    bool ok = false;
    const int v = p.toInt(&ok);
    if (!ok) throw Error(what + ": \"" + p.toStdString() + "\" is not an integer");
    out.push_back(v);
  }
  return out;
}

QString intsText(const std::vector<int>& v) {
  QStringList parts;
  for (int x : v) parts << QString::number(x);
  return parts.join(' ');
}

TargetFunction vec2vecFunction(int index, int n, int m, int seed) {
  switch (index) {
    case 0:
      return smoothTestFunction(n, m, static_cast<uint64_t>(seed));
    case 1:  // every output the sum of the coordinates
      return [m](const std::vector<double>& x) {
        double s = 0;
        for (double v : x) s += v;
        return std::vector<double>(static_cast<size_t>(m), s);
      };
    default:  // every output the product of sin(πx_i)
      return [m](const std::vector<double>& x) {
        double p = 1;
        for (double v : x) p *= std::sin(M_PI * v);
        return std::vector<double>(static_cast<size_t>(m), p);
      };
  }
}

}  // namespace

PromptBuilder::PromptBuilder(QWidget* parent) : QWidget(parent) {
  programBox_ = new QComboBox(this);
  programBox_->addItems({tr("more_ones"), tr("vec2vec"), tr("tok2tok")});
  pages_ = new QStackedWidget(this);

  auto* moreOnes = new QWidget(pages_);
  bits_ = new QLineEdit(QStringLiteral("10110001"), moreOnes);
  auto* mf = new QFormLayout(moreOnes);
  mf->addRow(tr("0/1 string"), bits_);
  pages_->addWidget(moreOnes);

  auto* vec = new QWidget(pages_);
  vecN_ = spin(1, 4, 2, vec);
  vecM_ = spin(1, 4, 1, vec);
  vecCells_ = spin(1, 64, 4, vec);
  vecFunction_ = new QComboBox(vec);
  vecFunction_->addItems({tr("smooth random (seed)"), tr("sum of x"), tr("Π sin(πx)")});
  vecSeed_ = spin(0, 1 << 30, 1, vec);
  vecQuery_ = new QLineEdit(QStringLiteral("3/10, 7/10"), vec);
  auto* vf = new QFormLayout(vec);
  vf->addRow(tr("n (input dim)"), vecN_);
  vf->addRow(tr("m (output dim)"), vecM_);
  vf->addRow(tr("N (cells per axis)"), vecCells_);
  vf->addRow(tr("target f"), vecFunction_);
  vf->addRow(tr("seed"), vecSeed_);
  vf->addRow(tr("query x"), vecQuery_);
  pages_->addWidget(vec);

  auto* tok = new QWidget(pages_);
  tokL_ = spin(1, 16, 3, tok);
  tokDict_ = new QLineEdit(
      QStringLiteral("3 1 9 : 9 9 9; 3 5 1 : 1 2 1; 4 2 6 : 9 2 5; 8 5 6 : 8 8 6"), tok);
  tokDict_->setToolTip(tr("key : value; key : value; ... (tokens separated by spaces)"));
  tokQuery_ = new QLineEdit(QStringLiteral("4 2 6"), tok);
  tokK_ = spin(1, 64, 4, tok);
  tokV_ = spin(1, 1000, 10, tok);
  tokSeed_ = spin(0, 1 << 30, 0, tok);
  auto* random = new QPushButton(tr("Random dictionary"), tok);
  auto* randomRow = new QHBoxLayout;
  randomRow->addWidget(new QLabel(tr("K"), tok));
  randomRow->addWidget(tokK_);
  randomRow->addWidget(new QLabel(tr("vocab"), tok));
  randomRow->addWidget(tokV_);
  randomRow->addStretch(1);
  auto* tf = new QFormLayout(tok);
  tf->addRow(tr("L"), tokL_);
  tf->addRow(tr("dictionary"), tokDict_);
  tf->addRow(tr("query"), tokQuery_);
  tf->addRow(randomRow);
  // Rows of their own keep the builder narrow enough for a 1000 px window.
  tf->addRow(tr("seed"), tokSeed_);
  tf->addRow(random);
  pages_->addWidget(tok);
  connect(random, &QPushButton::clicked, this, [this] { setTokRandomFromFields(); });

  auto* buildButton = new QPushButton(tr("Build prompt"), this);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(programBox_);
  layout->addWidget(pages_);
  layout->addWidget(buildButton);
  connect(programBox_, &QComboBox::currentIndexChanged, pages_, &QStackedWidget::setCurrentIndex);
  connect(buildButton, &QPushButton::clicked, this, [this] {
    try {
      QString description;
      const ExactSequence tokens = build(&description);
      Q_EMIT built(tokens, description);
    } catch (const Error& e) {
      Q_EMIT failed(QString::fromStdString(e.what()));
    }
  });
  setProgram(Program::Tok2tok);
}

void PromptBuilder::setTokRandomFromFields() {
  try {
    setTok2tokRandom(tokK_->value(), tokV_->value(), tokSeed_->value());
  } catch (const Error& e) {
    Q_EMIT failed(QString::fromStdString(e.what()));
  }
}

void PromptBuilder::setProgram(Program p) { programBox_->setCurrentIndex(static_cast<int>(p)); }
PromptBuilder::Program PromptBuilder::program() const {
  return static_cast<Program>(programBox_->currentIndex());
}

void PromptBuilder::setMoreOnes(const QString& bits) {
  setProgram(Program::MoreOnes);
  bits_->setText(bits);
}

void PromptBuilder::setTok2tok(const QString& dictionary, const QString& query, int L) {
  setProgram(Program::Tok2tok);
  tokDict_->setText(dictionary);
  tokQuery_->setText(query);
  tokL_->setValue(L);
}

void PromptBuilder::setTok2tokRandom(int entries, int vocab, int seed) {
  tokK_->setValue(entries);
  tokV_->setValue(vocab);
  tokSeed_->setValue(seed);
  const Tok2tokCase c =
      randomDictionary(entries, tokL_->value(), vocab, static_cast<uint64_t>(seed));
  QStringList entriesText;
  for (const DictionaryEntry& e : c.dictionary)
    entriesText << intsText(e.key) + QStringLiteral(" : ") + intsText(e.value);
  setTok2tok(entriesText.join(QStringLiteral("; ")), intsText(c.query), tokL_->value());
}

void PromptBuilder::setVec2vec(int n, int m, int N, const QString& query, int functionIndex,
                               int seed) {
  setProgram(Program::Vec2vec);
  vecN_->setValue(n);
  vecM_->setValue(m);
  vecCells_->setValue(N);
  vecQuery_->setText(query);
  vecFunction_->setCurrentIndex(functionIndex);
  vecSeed_->setValue(seed);
}

ExactSequence PromptBuilder::build(QString* description) const {
  switch (program()) {
    case Program::MoreOnes: {
      ExactSequence out;
      for (const QChar ch : bits_->text()) {
        if (ch.isSpace()) continue;
        if (ch != '0' && ch != '1')
          throw Error("more_ones: the string may hold only 0 and 1, got '" +
                      QString(ch).toStdString() + "'");
        out.push_back({Exact(ch == '1' ? 1 : 0)});
      }
      if (out.empty()) throw Error("more_ones: the 0/1 string is empty");
      if (description) *description = tr("more_ones: %1 tokens").arg(out.size());
      return out;
    }
    case Program::Vec2vec: {
      const int n = vecN_->value(), m = vecM_->value(), N = vecCells_->value();
      std::vector<double> x;
      for (const QString& part : vecQuery_->text().split(',', Qt::SkipEmptyParts)) {
        try {
          x.push_back(Exact::parse(part.trimmed().toStdString()).toDouble());
        } catch (const Error& e) {
          throw Error(std::string("vec2vec query: ") + e.what());
        }
      }
      if (static_cast<int>(x.size()) != n)
        throw Error("vec2vec query: expected " + std::to_string(n) + " coordinates, got " +
                    std::to_string(x.size()));
      const TargetFunction f =
          vec2vecFunction(vecFunction_->currentIndex(), n, m, vecSeed_->value());
      const ExactSequence tokens = vec2vecInput(x, n, m, N, f);
      if (description) {
        const auto expected = vec2vecExpected(x, N, f);
        QStringList e;
        for (double v : expected) e << QString::number(v, 'g', 6);
        *description = tr("vec2vec: %1 tokens, expected %2").arg(tokens.size()).arg(e.join(' '));
      }
      return tokens;
    }
    case Program::Tok2tok: {
      const int L = tokL_->value();
      Dictionary dict;
      const QStringList entries = tokDict_->text().split(';', Qt::SkipEmptyParts);
      for (int i = 0; i < entries.size(); ++i) {
        const QStringList kv = entries[i].split(':');
        if (kv.size() != 2)
          throw Error("tok2tok dictionary entry " + std::to_string(i) +
                      ": expected \"key : value\", got \"" + entries[i].trimmed().toStdString() +
                      "\"");
        dict.push_back({parseInts(kv[0], "entry " + std::to_string(i) + " key"),
                        parseInts(kv[1], "entry " + std::to_string(i) + " value")});
      }
      const std::vector<int> query = parseInts(tokQuery_->text(), "tok2tok query");
      const ExactSequence tokens = tok2tokInput(dict, query, L);
      if (description)
        *description = tr("tok2tok: %1 tokens, query %2, expected %3")
                           .arg(tokens.size())
                           .arg(intsText(query), intsText(tok2tokExpected(dict, query, L)));
      return tokens;
    }
  }
  return {};
}

}  // namespace lsrl::studio
