#include "app/studio/common/file_dialogs.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMessageBox>
#include <QRegularExpression>
#include <QStatusBar>
#include <exception>

namespace lsrl::studio {

namespace {

// How long a confirmation stays in the status bar: long enough to read a path.
constexpr int kConfirmationMs = 10000;

}  // namespace

QString withSuffix(const QString& path, const QString& suffix) {
  if (path.isEmpty() || suffix.isEmpty() || !QFileInfo(path).suffix().isEmpty()) return path;
  return path + QLatin1Char('.') + suffix;
}

QString askSavePath(QWidget* parent, const QString& title, const FileFormat& format,
                    const QString& suggested) {
  QFileDialog dialog(parent, title, QString(), format.filter);
  dialog.setAcceptMode(QFileDialog::AcceptSave);
  dialog.setFileMode(QFileDialog::AnyFile);
  // The dialog appends the suffix itself, so its overwrite question sees the real name;
  // with several formats on offer, the chosen one's suffix.
  dialog.setDefaultSuffix(format.suffix);
  QObject::connect(&dialog, &QFileDialog::filterSelected, &dialog, [&dialog](const QString& f) {
    static const QRegularExpression pattern(QStringLiteral("\\(\\*\\.([A-Za-z0-9_]+)"));
    const auto match = pattern.match(f);
    if (match.hasMatch()) dialog.setDefaultSuffix(match.captured(1));
  });
  if (!suggested.isEmpty()) dialog.selectFile(withSuffix(suggested, format.suffix));
  if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty()) return {};
  return withSuffix(dialog.selectedFiles().front(), dialog.defaultSuffix());
}

QString askOpenPath(QWidget* parent, const QString& title, const QString& filter,
                    const QString& near) {
  QFileDialog dialog(parent, title, near.isEmpty() ? QString() : QFileInfo(near).absolutePath(),
                     filter);
  dialog.setAcceptMode(QFileDialog::AcceptOpen);
  dialog.setFileMode(QFileDialog::ExistingFile);
  if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty()) return {};
  return dialog.selectedFiles().front();
}

QString weightsFileFilter() { return QObject::tr("Weights (*.safetensors *.npz);;All files (*)"); }

QString askFolder(QWidget* parent, const QString& title) {
  return QFileDialog::getExistingDirectory(parent, title);
}

void confirmWritten(QWidget* parent, const QString& what) {
  auto* window = parent ? qobject_cast<QMainWindow*>(parent->window()) : nullptr;
  if (window != nullptr) window->statusBar()->showMessage(what, kConfirmationMs);
}

QString exportWithDialog(QWidget* parent, const QString& title, const FileFormat& format,
                         const std::function<void(const QString&)>& write,
                         const QString& suggested) {
  const QString path = askSavePath(parent, title, format, suggested);
  if (path.isEmpty()) return {};
  try {
    write(path);
  } catch (const std::exception& e) {
    QMessageBox::warning(parent, QObject::tr("Export failed"),
                         QObject::tr("Could not write %1:\n%2")
                             .arg(QDir::toNativeSeparators(path), QString::fromUtf8(e.what())));
    return {};
  }
  confirmWritten(parent, QObject::tr("Exported %1").arg(QDir::toNativeSeparators(path)));
  return path;
}

}  // namespace lsrl::studio
