// The Models tab's 3D scatter graphs (Lattice sphere, looped transformer PCA): Pca3dPanel's
// newScatter3d (no multisampling: software OpenGL) with axis labels that stay legible
// there. Data Visualization draws each label as a texture scaled with the scene; without
// multisampling a small font shrinks to a smudge and the theme's label box and border are
// all that remains ("labels render as boxes"). Like Pca3dPanel, needs xcb.
#pragma once

class Q3DScatter;

namespace lsrl::studio {

// A new graph (owned by the caller) with legible labels: a font of `labelPointSize`, no
// label background or border, no shadows. Labels scale with the scene, not the font
// alone: a view about 300 pixels wide needs ~80 points for labels a person can read.
Q3DScatter* newModelScatter3d(int labelPointSize);

}  // namespace lsrl::studio
