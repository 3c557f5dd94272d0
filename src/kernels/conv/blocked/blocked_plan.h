#pragma once
// Plans of the channel-blocked direct convolution (16-channel blocks, one
// zmm): every operand is staged in the workspace as [image][channel block]
// [d][h][w][16] with the spatial padding materialised, so the micro-kernels
// run without a single boundary test. The plan is a pure function of the
// shape: the workspace size computed in phase 1 and the run in phase 2 see
// the same plan, and no choice depends on the thread count.
//
// Forward and backward-data are "row passes": each output row segment of one
// tile of output blocks is a sum over a list of taps (a reduction channel
// block and a kernel offset) of 16 x (16 * nb) weight blocks times the input
// values the row's positions read at that tap. Backward data is split by
// stride phase, so every phase is a stride-1 correlation of gradOutput with
// the taps that phase meets. Backward weight reduces over rows in a fixed
// number of chunks that depends on the shape only.

#include <cstdint>

#include "kernels/kernel_types.h"

namespace aclcpu {
namespace kernels {
namespace blocked {

constexpr int64_t kLanes = 16;  // channels per block
constexpr int64_t kMaxPhases = 64;
constexpr int64_t kMaxTileBlocks = 4;  // ChannelBlocks::tileWidth

// How output channel blocks meet reduction channel blocks.
struct ChannelBlocks {
  int64_t outBlocks = 0;    // blocks of the pass's output channels
  int64_t redBlocks = 0;    // blocks of the pass's reduction channels (whole tensor)
  int64_t outPerGroup = 0;  // output blocks per block group
  int64_t redPerGroup = 0;  // reduction blocks each output block sums over
  int64_t tiles = 0;        // output tiles of up to tileWidth blocks
  // Blocks per output tile: 1, 2 where a group has them, 4 for the fp32
  // forwards of W-strided layers and the fp32 row passes of long rows
  // (planRowPass), where a group's blocks come in fours (every tile then has
  // exactly four).
  int64_t tileWidth = 1;
  bool depthwise = false;  // one channel per group: channel-wise kernels
  // Whole groups per block when several share one (4 or 8 channels per
  // group), else 1. Every pass then stages those blocks with the groups'
  // channels interleaved (see StagedLayout::laneGroups), so a kernel step
  // multiplies one channel of every group instead of a block-diagonal
  // 16 x 16 block that is mostly zeros.
  int64_t laneGroups = 1;
};

// Floats of one tap's weight-gradient partial sums for one (output block,
// reduction block) pair: 16 per depthwise block, else 16 / laneGroups
// vectors of 16.
inline int64_t weightTapFloats(const ChannelBlocks& b) {
  return b.depthwise ? kLanes : kLanes / b.laneGroups * kLanes;
}

// A staged activation: [images][blocks][size0][size1][size2][16] (+ slack),
// padded position q of dim d holds source index q * step[d] + first[d]
// (zero outside the source); positions the source never maps to are zero.
struct StagedLayout {
  int64_t images = 0;  // images the buffer holds (a group of the batch)
  int64_t channels = 0;
  int64_t blocks = 0;
  int64_t size[3] = {1, 1, 1};
  int64_t step[3] = {1, 1, 1};
  int64_t first[3] = {0, 0, 0};
  int64_t source[3] = {1, 1, 1};  // the dense tensor's extents
  int64_t rowStride = 0, planeStride = 0, blockStride = 0, imageStride = 0;  // floats
  int64_t slackFloats = 0;
  uint64_t floats = 0;
  // Lane order within a block: with G = laneGroups groups of 16 / G
  // channels, lane j * G + g holds channel g * (16 / G) + j of the block
  // (G = 1: lane c holds channel c).
  int64_t laneGroups = 1;
};

// Which input row (along D or H) the j-th tap of a phase's kernel reads for
// row q of the phase's grid: q * qStep + first + j * jStep, for j < taps;
// rows outside [0, extent) are padding.
struct TapRows {
  int64_t qStep = 0, first = 0, jStep = 0, extent = 1, taps = 1;
};
// The taps [*lo, *hi) of row q that read rows inside [0, extent) (the
// rows of taps j are monotonic in j, so the inside ones are contiguous).
void tapsInside(const TapRows& t, int64_t q, int64_t* lo, int64_t* hi);
// The rows [q, q + rows) for which tap j reads a row inside, as offsets
// [*lo, *hi) from q (qStep >= 1).
void rowsInside(const TapRows& t, int64_t q, int64_t rows, int64_t j, int64_t* lo, int64_t* hi);

struct Phase {
  int64_t rows[2] = {1, 1};        // row grid along d and h
  int64_t cols = 0;                // positions per row
  int64_t inRowStep[2] = {0, 0};   // floats per row step, in the pass's input
  int64_t outRowStep[2] = {0, 0};  // floats per row step, in the pass's output
  int64_t outColStep = kLanes;     // floats between consecutive outputs of a row
  int64_t outBase = 0;             // floats: the phase's first output
  int64_t tapBegin = 0;            // into the tap table (per tile: redPerGroup * tapsInPhase)
  int64_t tapCount = 0;
  int64_t weightBegin = 0;  // floats into one tile's packed weights
  int64_t segments = 0;     // row segments (work items) per row
  int64_t itemBegin = 0;    // first work item of this phase within one (image, tile)
  // With RowPassPlan::skipsPaddingRows: the phase's taps along D and H, and
  // the table entries per (D tap, H tap) pair (reduction blocks x W taps).
  TapRows tapRows[2];
  int64_t tapsPerRowPair = 0;
  // The same along W for the columns of a row (taps 0: not described, as
  // for flattened rows, whose columns run across the planes' rows).
  TapRows tapCols{0, 0, 0, 1, 0};
};

enum class RowPassKind : uint8_t { Forward, BackwardData };

struct RowPassPlan {
  RowPassKind kind = RowPassKind::Forward;
  ChannelBlocks blocks;
  StagedLayout in;            // the staged input (x, or gradOutput for backward data)
  StagedLayout out;           // the staged output
  int64_t inStep = 1;         // input positions per output column: 1 or 2
  int64_t segmentLength = 0;  // positions per work item
  int64_t phaseCount = 0;
  Phase phases[kMaxPhases];
  int64_t tapsPerTile = 0;  // entries of the tap table
  int64_t tileWeightFloats = 0;
  int64_t itemsPerImageTile = 0;
  int64_t imagesPerGroup = 0;  // the batch is staged and run in groups of this many images
  // Planned with skipPaddingRows: each phase's tap table runs its (D, H) tap
  // pairs outermost (then reduction blocks, then W taps), so the taps of an
  // output row whose input rows lie in the padding are a prefix and a suffix
  // of its list, which the row's work item leaves out (the float64 reference
  // has no such products either).
  bool skipsPaddingRows = false;
  int64_t tapFloats = 0;  // packed weight floats per tap
  // Workspace regions (bytes, 64-aligned) and total.
  uint64_t inOffset = 0, outOffset = 0, weightOffset = 0, tapOffset = 0, bytes = 0;
};

struct WeightPassPlan {
  ChannelBlocks blocks;  // output = gradOutput channels, reduction = x channels
  StagedLayout x;        // as the forward pass stages it
  StagedLayout dy;       // exact, no padding
  int64_t taps[3] = {1, 1, 1};
  int64_t tapStep[3] = {0, 0, 0};  // floats between kernel taps in x, per dim
  int64_t rowStepX[2] = {0, 0};    // floats per output row step (d, h) in x
  int64_t colStepX = 0;            // floats per output column in x
  int64_t rows = 0;                // images * outD * outH
  // Along D, H and W, which x row (column) tap j of output row (column) q
  // reads (TapRows): rows and columns outside x are padding, whose products
  // the pass leaves out.
  TapRows tapRows[3];
  int64_t imagesPerGroup = 0;  // the batch is staged in groups of this many images
  int64_t chunks = 0;          // work items: chunks * outBlocks
  int64_t pairs = 0;           // outBlocks * redPerGroup
  int64_t blockFloats = 0;     // one pair's partial: taps * 16 * 16 (depthwise: taps * 16)
  uint64_t xOffset = 0, dyOffset = 0, partialOffset = 0, bytes = 0;
};

// Staged buffers of one image group stay within this many bytes; a shape
// whose single image needs more is left to the generic algorithm.
constexpr uint64_t kStagingBudgetBytes = uint64_t{256} << 20;

// Per tap of a row pass, in the kernels' order (phase, reduction block,
// kernel offset): the input offset in floats relative to the row's first
// position in the tile's first reduction block, the reduction block, and
// the weight tap (kd * kh * kw index) it multiplies.
struct TapTable {
  int64_t* offsets = nullptr;
  int32_t* redIndex = nullptr;
  int32_t* weightTap = nullptr;
  // The entries grouped by reduction block (indexByBlock): block r's are
  // byBlock[blockBegin[r] .. blockBegin[r + 1]), in table order. The weight
  // packers visit a tile's entries block by block; scanning the whole table
  // per block (with a division per entry) was 5% of a 512ch 7x7 forward.
  int32_t* byBlock = nullptr;
  int32_t* blockBegin = nullptr;  // blocks + 1 values
  int64_t blocks = 0;
};

// A table of n entries kept in a plan's region takes n + 1 times this many
// bytes (blockBegin holds up to n + 1 values: indexByBlock).
constexpr int64_t kTapTableEntryBytes = sizeof(int64_t) + 4 * sizeof(int32_t);

// Where a pass keeps its table: in this buffer (on the calling thread's
// stack, which the pool's threads read while it waits) when `entries` fit,
// else in the plan's workspace region at `offset`. The kernels and weight
// packers address memory with the table, and a workspace that the caller
// hands to two runs at once (a repeatable executor on two streams) must
// cost wrong numbers at worst, never an access outside the buffers.
struct TapTableStorage {
  static constexpr int64_t kEntries = 2048;  // 48 KB
  alignas(64) int64_t offsets[kEntries];
  int32_t redIndex[kEntries];
  int32_t weightTap[kEntries];
  int32_t byBlock[kEntries];
  int32_t blockBegin[kEntries + 1];

  TapTable table(void* scratch, uint64_t offset, int64_t entries) {
    TapTable t;
    if (entries <= kEntries) {
      t.offsets = offsets;
      t.redIndex = redIndex;
      t.weightTap = weightTap;
      t.byBlock = byBlock;
      t.blockBegin = blockBegin;
    } else {
      t.offsets = reinterpret_cast<int64_t*>(static_cast<char*>(scratch) + offset);
      t.redIndex = reinterpret_cast<int32_t*>(t.offsets + entries);
      t.weightTap = t.redIndex + entries;
      t.byBlock = t.weightTap + entries;
      t.blockBegin = t.byBlock + entries;
    }
    return t;
  }
};

// Fills the table's by-block index of its `entries` entries over `blocks`
// reduction blocks (at most `entries`: every block has an entry per
// phase). Entries whose block is out of range (a workspace shared by two
// runs at once) are left out.
void indexByBlock(TapTable* table, int64_t entries, int64_t blocks);

// The table entry of each kernel tap of reduction block `red`
// (entryOfTap[t] for t < taps), where the block's entries hold each of its
// taps exactly once; false otherwise. The weight packers then write a
// block's packed weights for all its taps at once.
bool entriesOfBlock(const TapTable& table, int64_t red, int64_t taps, int64_t* entryOfTap);

// Images per staged group of a weight pass on `threads` threads: about
// kWholeImageBytes of staged x and dy per thread (at least one image each),
// at most the plan's group. Each group's chunks are spread over the threads,
// so a thread's rows are mostly those it staged, read back from its L2. The
// group size depends on the thread count; the bits do not (every chunk sums
// its rows in row order whatever the groups).
int64_t weightGroupImages(const WeightPassPlan& p, int64_t threads);

// What the kernel family that runs a row pass can do or prefers.
struct RowKernelTraits {
  // When positive, replaces the row length below which planes are
  // flattened into one row.
  int64_t shortRow = 0;
  bool skipPaddingRows = false;  // taps that read only padding rows are left out
  // Output blocks a register tile can hold: the fp32 kernels take 4, the
  // 16-bit word kernels (bf16 pairs, hi/lo splits of HF32 and fp16) 2.
  int64_t maxTileBlocks = kMaxTileBlocks;
  // The largest W stride of a forward the kernels step through their input
  // with (RowJob::inStep).
  int64_t maxInStep = 2;
};

// False when the blocked algorithm does not take the shape (channel layout,
// strides it has no kernel for, or sizes that overflow). With a table (sized
// by a first call with the same traits: tapsPerTile entries at tapOffset),
// also fills it.
bool planRowPass(const ConvShape& shape, RowPassKind kind, RowPassPlan* plan,
                 TapTable* table = nullptr, const RowKernelTraits& traits = {});
bool planWeightPass(const ConvShape& shape, WeightPassPlan* plan);

// The output blocks of one tile: the first and how many (1 to tileWidth).
void tileBlocks(const ChannelBlocks& b, int64_t tile, int64_t* first, int* nb);
// The first reduction block an output block sums over.
inline int64_t firstReduction(const ChannelBlocks& b, int64_t outBlock) {
  return outBlock / b.outPerGroup * b.redPerGroup;
}

// One work item of a row pass over a staged group of `images` images, as
// offsets (in 4-byte staged elements) from the staged input, the packed
// weights of all tiles and the staged output.
struct RowItem {
  int64_t in = 0, weights = 0, out = 0;
  int64_t tapBegin = 0, tapCount = 0;
  int64_t outColStep = 0;
  int64_t count = 0;  // positions
  int nb = 1;
  // Its columns [firstCol, firstCol + count) of the phase, whose W taps
  // (the innermost of every tap-table entry run) tapCols describes; null
  // when not described.
  const TapRows* tapCols = nullptr;
  int64_t firstCol = 0;
};
RowItem rowItemAt(const RowPassPlan& p, int64_t images, int64_t item);
inline int64_t rowItemCount(const RowPassPlan& p, int64_t images) {
  return images * p.blocks.tiles * p.itemsPerImageTile;
}

// The L2 share a thread's staged image(s) and weights may take in the
// whole-image schedules below.
constexpr uint64_t kWholeImageBytes = uint64_t{2} << 20;
// Floats from one image's staged input to the next when whole images run
// per thread: each image is followed by a slack of its own (the kernels
// read past an image's last row), so no thread reads where another stages.
// The row pass plans room for imagesPerGroup of them plus the slack.
int64_t wholeImagePitch(const StagedLayout& l, int64_t extraSlack = 0);
// Whether a row pass on `threads` threads runs whole images per thread
// (stage, compute and store each image on one core) instead of spreading
// every image's items over all threads: when the group splits evenly
// enough and one image's staged input (and staged output, when the pass
// writes one) with every tile's weights fits kWholeImageBytes, so that a
// core's image and weights stay in its L2 between staging, the kernels and
// the store. (Spread items split the weights between the threads instead:
// better when they do not fit.) The schedule depends on the thread count;
// the bits do not (the same items either way).
bool eachThreadTakesWholeImages(const RowPassPlan& p, int64_t threads, bool stagesOutput);
// Inside such a schedule's parallel region over a group of `images`: which
// image's room (0 .. images - 1) the calling thread stages `image` in. Each
// thread reuses one room, image after image, so its staged copies' lines
// are already in that core's L2 when the next image is staged (a room per
// image met every line first as a miss: RN50 3x3 64ch forward, 1 thread,
// medians of 5, fp32 10.70 -> 10.50 ms, bf16 2.01 -> 1.93; 2 threads and
// other layers 0.98-1.01); image's own room when the team is larger than
// the group.
int64_t wholeImageRoom(int64_t image, int64_t images);

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
