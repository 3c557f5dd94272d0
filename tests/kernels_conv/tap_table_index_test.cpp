// The row passes' tap-table index (indexByBlock, entriesOfBlock) against a
// direct scan of the table: each reduction block lists exactly its entries
// in table order, entries naming a block out of range (a workspace shared
// by two runs at once) are left out, and a block's tap map is refused when
// a tap is missing or repeated.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/conv/blocked/blocked_plan.h"

namespace aclcpu {
namespace kernels {
namespace blocked {
namespace {

TEST(TapTableIndex, ListsEachBlocksEntriesInTableOrder) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int64_t entries = std::uniform_int_distribution<int64_t>(1, 300)(rng);
    const int64_t blocks = std::uniform_int_distribution<int64_t>(1, entries)(rng);
    TapTableStorage storage;
    TapTable t = storage.table(nullptr, 0, entries);
    // Mostly valid blocks, some out of range on either side.
    std::uniform_int_distribution<int32_t> red(-2, static_cast<int32_t>(blocks) + 1);
    for (int64_t i = 0; i < entries; ++i) t.redIndex[i] = red(rng);
    indexByBlock(&t, entries, blocks);
    ASSERT_EQ(t.blocks, blocks);
    int64_t listed = 0;
    for (int64_t r = 0; r < blocks; ++r) {
      std::vector<int32_t> expected;
      for (int64_t i = 0; i < entries; ++i)
        if (t.redIndex[i] == r) expected.push_back(static_cast<int32_t>(i));
      ASSERT_EQ(t.blockBegin[r], listed) << "block " << r;
      const std::vector<int32_t> got(t.byBlock + t.blockBegin[r], t.byBlock + t.blockBegin[r + 1]);
      EXPECT_EQ(got, expected) << "block " << r << " of " << blocks << ", " << entries
                               << " entries";
      listed += static_cast<int64_t>(expected.size());
    }
    EXPECT_EQ(t.blockBegin[blocks], listed);
  }
}

TEST(TapTableIndex, BlockTapMapNeedsEachTapOnce) {
  // Two blocks of three taps, block-inside-taps order as the padding-row
  // tables have it: entries (tap 0: r0, r1), (tap 1: r0, r1), ...
  TapTableStorage storage;
  TapTable t = storage.table(nullptr, 0, 6);
  for (int64_t i = 0; i < 6; ++i) {
    t.redIndex[i] = static_cast<int32_t>(i % 2);
    t.weightTap[i] = static_cast<int32_t>(i / 2);
  }
  indexByBlock(&t, 6, 2);
  int64_t entryOfTap[4];
  ASSERT_TRUE(entriesOfBlock(t, 1, 3, entryOfTap));
  EXPECT_EQ(entryOfTap[0], 1);
  EXPECT_EQ(entryOfTap[1], 3);
  EXPECT_EQ(entryOfTap[2], 5);
  EXPECT_FALSE(entriesOfBlock(t, 0, 4, entryOfTap));  // tap 3 missing
  EXPECT_FALSE(entriesOfBlock(t, 2, 3, entryOfTap));  // no such block
  t.weightTap[2] = 0;                                 // block 0 holds tap 0 twice
  EXPECT_FALSE(entriesOfBlock(t, 0, 3, entryOfTap));
}

}  // namespace
}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
