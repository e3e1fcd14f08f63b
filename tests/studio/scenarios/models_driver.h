// The Models tab under a person's hands: opening the tab, the Model box, and a run pressed
// and waited for. Shared by the scenario files that run seed models.
#pragma once

#include "app/studio/zoo/model_tab.h"
#include "app/studio/zoo/model_zoo_panel.h"
#include "studio/scenarios/scenario_driver.h"

namespace lsrl::studio::scenario {

inline ModelTab* openModelsTab(MainWindow& w) {
  clickTab(&w, QStringLiteral("Models"));
  settle(100);
  return findVisible<ModelTab>(&w);
}

inline QComboBox* modelBox(ModelTab* tab) {
  return findVisible<QComboBox>(tab, QStringLiteral("ModelKind"));
}

// Every model the Model box offers, in its order.
inline QStringList modelTitles(ModelTab* tab) {
  QStringList titles;
  if (QComboBox* box = modelBox(tab))
    for (int i = 0; i < box->count(); ++i) titles << box->itemText(i);
  return titles;
}

// Presses Run and waits for the run to end; the status then names the model.
inline void runModel(ModelTab* tab, int timeoutMs = 120000) {
  // A real button press on an inactive window activates it (Qt's xcb plugin does so); a
  // dialog that closed left no window active here, and QTest's click does not go through X.
  tab->window()->activateWindow();
  EXPECT_TRUE(QTest::qWaitForWindowActive(tab->window(), 2000));
  click(tab->zoo()->runButton());
  ASSERT_TRUE(waitUntil([&] { return !tab->isRunning(); }, timeoutMs)) << "the run ends";
  settle(100);
  ASSERT_NE(tab->run(), nullptr) << tab->statusText().toStdString();
}

}  // namespace lsrl::studio::scenario
