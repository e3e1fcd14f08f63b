// The Models tab's 3D scatter graphs (Lattice sphere, looped transformer PCA): Pca3dPanel's
// newScatter3d (no multisampling: software OpenGL) with axis labels that stay legible
// there. Data Visualization draws each label as a texture scaled with the scene; without
// multisampling a small font shrinks to a smudge and the theme's label box and border are
// all that remains ("labels render as boxes"). Like Pca3dPanel, needs xcb.
#pragma once

class Q3DScatter;
class QValue3DAxis;

namespace lsrl::studio {

// A new graph (owned by the caller) with legible labels: a font of `labelPointSize`, no
// label background or border, no shadows. Labels scale with the scene, not the font
// alone: a view about 600 pixels wide reads well at 22 points, one of 400 needs ~36.
Q3DScatter* newModelScatter3d(int labelPointSize);

// Sets `axis` to cover [lo, hi] with a few round labels (1, 2 or 5 × 10^k apart, at most
// four segments): auto-ranged axes label odd values (8.30, 4.27, 0.24) close together.
void setRoundAxisRange(QValue3DAxis* axis, double lo, double hi);

}  // namespace lsrl::studio
