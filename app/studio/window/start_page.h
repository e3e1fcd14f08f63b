// What a window with nothing open shows in its Graph tab: the paper's examples as cards
// with a picture of each program's graph, the recently opened files, and "New program"
// and "Open…". The window shows it instead of an untouched empty editor and hides the
// editor's docks meanwhile (main_window.h). Every entry is a button: Tab walks them,
// Enter or Space opens one.
#pragma once

#include <QList>
#include <QSet>
#include <QWidget>

class QLabel;
class QVBoxLayout;

namespace lsrl::studio {

class RecentFiles;
class StartPageEntry;

class StartPage : public QWidget {
  Q_OBJECT

 public:
  explicit StartPage(RecentFiles* recent, QWidget* parent = nullptr);

  // Re-reads the recent files (one was opened, saved or removed).
  void refreshRecentFiles();
  // The window's document behind the page, offered as "Back to NAME"; empty: none.
  void setOpenDocument(const QString& name);
  void focusFirstEntry();

  StartPageEntry* newProgramEntry() const { return newProgram_; }
  StartPageEntry* resumeEntry() const { return resume_; }
  // One card per exampleEntries() item, in that order.
  const QList<StartPageEntry*>& exampleCards() const { return cards_; }
  const QList<StartPageEntry*>& recentEntries() const { return recentEntries_; }
  // Example cards still waiting for their picture.
  int thumbnailsPending() const;

 Q_SIGNALS:
  void newProgramRequested();
  void openRequested();
  void resumeRequested();
  void exampleRequested(int index);  // into exampleEntries()
  void recentFileRequested(const QString& path);

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  QWidget* buildHeader();
  QWidget* buildStartColumn();
  QWidget* buildExamples();
  void requestThumbnails();
  void showThumbnail(int index);
  void updateTabOrder();

  RecentFiles* recent_;
  StartPageEntry* newProgram_ = nullptr;
  StartPageEntry* open_ = nullptr;
  StartPageEntry* resume_ = nullptr;
  QVBoxLayout* recentLayout_ = nullptr;
  QLabel* noRecentFiles_ = nullptr;
  QList<StartPageEntry*> recentEntries_;
  QList<StartPageEntry*> cards_;
  bool thumbnailsRequested_ = false;
  QSet<int> thumbnailsShown_;  // cards with their picture (or the error instead)
};

}  // namespace lsrl::studio
