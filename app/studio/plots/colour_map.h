// The diverging colour map of the heat maps: blue for negative, white at zero, red for
// positive, saturating at ±range (a symmetric range keeps zero white).
#pragma once

#include <QColor>
#include <QRgb>

namespace lsrl::studio {

// Non-finite values are grey; range <= 0 maps everything to white (all zero).
QRgb divergingColour(double value, double range);

// Distinct colours for the i-th of a few series (slots, channels), repeating after eight.
QColor categoricalColour(int i);

}  // namespace lsrl::studio
