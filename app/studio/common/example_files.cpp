#include "app/studio/common/example_files.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace lsrl::studio {

QStringList exampleDirectories() {
  QStringList dirs;
  const QByteArray env = qgetenv("LSRL_EXAMPLES_DIR");
  if (!env.isEmpty()) dirs << QString::fromLocal8Bit(env);
  dirs << QCoreApplication::applicationDirPath() + QStringLiteral("/../share/lsrl-studio/examples");
  dirs << QStringLiteral(LSRL_EXAMPLES_INSTALL_DIR) << QStringLiteral(LSRL_EXAMPLES_SOURCE_DIR);
  return dirs;
}

QString exampleFilePath(const QString& fileName) {
  for (const QString& dir : exampleDirectories()) {
    const QFileInfo info(QDir(dir), fileName);
    if (info.isFile()) return info.absoluteFilePath();
  }
  return {};
}

}  // namespace lsrl::studio
