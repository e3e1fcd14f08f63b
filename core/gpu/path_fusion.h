// Compiled paths in one dispatch per tile (shaders/path_fused.comp; docs/vulkan.md, "Fused
// paths"). A compiled LSRL path is tiny — tok2tok L = 3 is 58 layers, 89 state dims and
// about 1,400 non-zeros — so the layered runner spends its tile on dozens of small
// dispatches and the barriers between them. Fused, one workgroup holds one sequence and
// walks its tokens, running every layer of the step in shared memory.
//
// FusedPathImage is the host side, pure and testable: the program packed into the
// shader's layer descriptors, index and coefficient arrays, the shared-memory layout (a
// region per layer, reused once its readers have run; LinStates' regions hold their state
// across steps) and the loop-iteration bound that sizes dispatches on devices that cap
// loops. FusedPath uploads it and records the dispatches.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/float_batch/layer_program.h"
#include "core/gpu/device.h"
#include "core/gpu/real.h"

namespace lsrl::gpu {

// Whether the runner fuses a program (LayerRunOptions::fusion) that can be fused
// (fusionObstacle is empty and its layout fits the device's shared memory): On always, Off
// never, Auto on GPUs (fusesByDefault). On a CPU driver a workgroup barrier is a coroutine
// switch, so a barrier per layer and step costs more than the dispatches it saves: the UA
// job ran 9× slower fused on lavapipe (docs/vulkan.md, "Fused paths").
enum class PathFusion { Auto, On, Off };
bool fusesByDefault(const DeviceInfo& info);

// Why `program` cannot run fused ("" when it can): a layer kind other than Linear, ReLU,
// Multi, LinState, Add and Mul, named with its source.
template <class Scalar>
std::string fusionObstacle(const float_batch::BasicLayerProgram<Scalar>& program);

// The packed program without its coefficients (what FusedPath keeps).
struct FusedPathLayout {
  std::vector<uint32_t> meta;  // descriptors, row pointers, column indices (the shader's)
  uint32_t layers = 0;
  uint32_t inWidth = 0, outWidth = 0;
  uint32_t colBase = 0;        // where column indices start in meta
  uint32_t sharedValues = 0;   // shared memory one sequence uses, in values
  uint32_t outputOffset = 0;   // the last layer's region
  uint32_t scratchOffset = 0;  // general recurrences' next state
  uint32_t stateValues = 0;    // LinState values carried between dispatches, per sequence
  uint32_t sortedTerms = 0;    // fp64: the most terms of a row summed by magnitude
  uint32_t maxWidth = 0;       // the widest layer (or token)
  bool fp64 = false;
  // Loops in path_fused.comp's runLayer (with rowSum inlined at its six call sites; fp64 adds
  // magnitude_sum.glsl's): fp32 9 strided loops + 6 row loops; fp64 + 6 × 4 sorting loops.
  static constexpr uint64_t kFusedLoopsFp32 = 15, kFusedLoopsFp64 = 39;
  // Per layer, what bounds one invocation's loop iterations in a step.
  struct LayerCost {
    uint32_t items = 0;      // rows (or blocks) the layer strides over invocations
    uint64_t perItem = 1;    // loop iterations one item costs
    uint32_t copyItems = 0;  // a second pass (general recurrences' copy back)
  };
  std::vector<LayerCost> costs;

  // A bound on one invocation's loop iterations per step with `local` invocations per
  // workgroup, as lavapipe counts them: the token's load, every layer's loops (entered on
  // every layer, whatever its kind), strided passes and rows, the output's store
  // (kernel_support.h's stepsPerDispatch divides a device's budget by it).
  uint64_t iterationsPerStep(uint32_t local) const;
};

template <class Scalar>
struct FusedPathImage : FusedPathLayout {
  std::vector<Scalar> coef;  // entry values, biases, transitions, initial states
};

// Packs `program` (throws lsrl::Error naming the layer when fusionObstacle is not empty).
// In fp64 rows of at most kMaxSortedTerms terms are flagged to be summed by magnitude.
template <class Scalar>
FusedPathImage<Scalar> fusedPathImage(const float_batch::BasicLayerProgram<Scalar>& program);

// The image on a device, and the kernel that runs it.
class FusedPath {
 public:
  // Throws lsrl::Error when the program cannot be fused (fusionObstacle) or its shared
  // memory exceeds the device's (the message names both sizes).
  template <class Scalar>
  FusedPath(Device& dev, const float_batch::BasicLayerProgram<Scalar>& program);
  ~FusedPath();
  FusedPath(const FusedPath&) = delete;
  FusedPath& operator=(const FusedPath&) = delete;

  // The fused path of `program` on `dev`, or null when it cannot be fused (fusionObstacle)
  // or its shared memory exceeds the device's: the layer runner's way in (the program is
  // packed once either way).
  template <class Scalar>
  static std::unique_ptr<FusedPath> make(Device& dev,
                                         const float_batch::BasicLayerProgram<Scalar>& program);

  // Records `sequences` sequences of `steps` tokens: tokens [sequences][steps][inWidth] →
  // out [sequences][steps][outWidth], in as few dispatches as the device's loop budget
  // allows, carrying states through `carry` (carryBytes) between them.
  void record(Batch& batch, const Buffer& tokens, const Buffer& out, const Buffer& carry,
              uint32_t sequences, uint32_t steps) const;
  size_t carryBytes(uint32_t sequences) const;
  uint32_t stepsPerDispatch() const { return stepsPerDispatch_; }
  // Dispatches record() makes for a tile of this shape.
  size_t dispatchesFor(uint32_t sequences, uint32_t steps) const;
  uint32_t workgroupSize() const { return local_; }

 private:
  // Uploads a packed program that fits the device's shared memory (else lsrl::Error).
  template <class Scalar>
  FusedPath(Device& dev, FusedPathImage<Scalar>&& image);

  Device& dev_;
  Real real_;
  FusedPathLayout layout_;
  std::shared_ptr<Buffer> meta_, coef_;
  uint32_t local_ = 0;
  uint32_t stepsPerDispatch_ = 1;
};

}  // namespace lsrl::gpu
