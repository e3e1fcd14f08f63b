// What the palette hands the editor in a drag and drop: the mime type, whose data is
// "primitive:Linear:3" or "sugar:f_larger" (PalettePanel::addFromMime reads it). Below
// both, so that the editor (the drop) need not know the panel (the drag).
#pragma once

namespace lsrl::studio {

inline constexpr char kPaletteMimeType[] = "application/x-lsrl-palette";

}  // namespace lsrl::studio
