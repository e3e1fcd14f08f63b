// Asking where a file goes (or which file to read), and saying where it went. Every save
// and export of the explorer goes through these, so that a name typed without an
// extension gets the format's one (before the dialog asks about overwriting, not after),
// a failure names the file in a message box, and a success says where the file is.
#pragma once

#include <QString>
#include <functional>

class QWidget;

namespace lsrl::studio {

struct FileFormat {
  QString filter;  // "PNG image (*.png)"
  QString suffix;  // "png": added to a name typed without one
};

// `path` with ".suffix" appended when its file name has no suffix at all.
QString withSuffix(const QString& path, const QString& suffix);

// Asks for a file to write (Qt's save dialog, overwrite confirmed); empty if cancelled.
// `suggested`: the name (or path) offered.
QString askSavePath(QWidget* parent, const QString& title, const FileFormat& format,
                    const QString& suggested = {});

// Asks for an existing file to read (Qt's open dialog); empty if cancelled. `filter`:
// "Weights (*.safetensors *.npz)"; `near`: a file whose folder the dialog opens in (the
// one chosen last time), or empty.
QString askOpenPath(QWidget* parent, const QString& title, const QString& filter,
                    const QString& near = {});

// The open dialogs' filter for weight files, as lsrl export and lsrl.torch.save_compiled
// write them: "Weights (*.safetensors *.npz);;All files (*)".
QString weightsFileFilter();

// Asks for a folder to write into; empty if cancelled.
QString askFolder(QWidget* parent, const QString& title);

// Tells the person that `what` was written (the window's status bar, for a while).
void confirmWritten(QWidget* parent, const QString& what);

// Asks for a path, writes it with `write` (which throws on failure) and says how it
// went: a warning naming the file on failure, confirmWritten on success. Returns the
// path written, or empty (cancelled or failed).
QString exportWithDialog(QWidget* parent, const QString& title, const FileFormat& format,
                         const std::function<void(const QString&)>& write,
                         const QString& suggested = {});

}  // namespace lsrl::studio
