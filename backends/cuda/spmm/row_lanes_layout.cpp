// spmm/row_lanes_layout.cpp: builds the interleaved, length-sorted order of rowlanes_kernel (row_lanes_layout.hpp).
#include "spmm/row_lanes_layout.hpp"

#include <algorithm>
#include <numeric>

namespace snk::cuda {

bool build_row_lanes_layout(const HeldSegments& seg, std::int64_t nnz, std::int32_t rows_per_range,
                            RowLanesLayout& out, const std::uint16_t* col16, int residues) {
  out = RowLanesLayout{};
  if (rows_per_range <= 0 || rows_per_range % 32 != 0 || seg.rows < 0 || nnz < 0) return false;
  if (residues < 0 || residues > 8 || (residues > 0 && !col16 && nnz > 0)) return false;
  if (!seg.tiles(nnz)) return false;
  const int nb = seg.n_blocks();
  const std::int32_t rows = seg.rows;
  const std::int32_t n_groups = (rows + 31) / 32;

  RowLanesLayout L;
  L.n_blocks = nb;
  L.rows = rows;
  L.rows_per_range = rows_per_range;
  L.n_groups = n_groups;
  const std::size_t groups = static_cast<std::size_t>(nb) * static_cast<std::size_t>(n_groups);
  L.group_start.assign(groups, 0);
  L.group_chunks.assign(groups, 0);
  L.slot_row.assign(groups * 32, -1);
  L.slot_len.assign(groups * 32, 0);
  // Pass 1: the slots' rows and the groups' chunk counts and starts.
  std::int64_t pos = 0;
  std::vector<std::int32_t> order;
  for (int c = 0; c < nb; ++c) {
    for (std::int32_t r0 = 0; r0 < rows; r0 += rows_per_range) {
      const std::int32_t r1 = std::min(rows, r0 + rows_per_range);
      order.resize(static_cast<std::size_t>(r1 - r0));
      std::iota(order.begin(), order.end(), r0);
      auto len = [&](std::int32_t r) { return seg.end(c, r) - seg.begin(c, r); };
      std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) { return len(a) > len(b); });
      const std::size_t base = static_cast<std::size_t>(c) * n_groups * 32;
      for (std::size_t i = 0; i < order.size(); ++i) {
        L.slot_row[base + static_cast<std::size_t>(r0) + i] = order[i];
        L.slot_len[base + static_cast<std::size_t>(r0) + i] = static_cast<std::int32_t>(len(order[i]));
      }
      for (std::int32_t g = r0 / 32; g < (r1 + 31) / 32; ++g) {
        const std::size_t gi = static_cast<std::size_t>(c) * n_groups + static_cast<std::size_t>(g);
        std::int32_t most = 0;
        for (int l = 0; l < 32; ++l) most = std::max(most, L.slot_len[gi * 32 + static_cast<std::size_t>(l)]);
        L.group_chunks[gi] = (most + 3) / 4;
        L.group_start[gi] = pos;
        pos += std::int64_t(L.group_chunks[gi]) * 128;
      }
    }
  }
  if (pos >= (std::int64_t(1) << 31)) return false;
  // Pass 2: the positions.
  L.perm.assign(static_cast<std::size_t>(pos), -1);
  std::vector<std::int32_t> bucket[8];
  for (std::size_t gi = 0; gi < groups; ++gi) {
    const int c = static_cast<int>(gi / static_cast<std::size_t>(n_groups));
    for (int l = 0; l < 32; ++l) {
      const std::int32_t r = L.slot_row[gi * 32 + static_cast<std::size_t>(l)];
      if (r < 0) continue;
      const std::int64_t S = seg.begin(c, r), n = L.slot_len[gi * 32 + static_cast<std::size_t>(l)];
      auto put = [&](std::int64_t i, std::int64_t q) {
        L.perm[static_cast<std::size_t>(L.group_start[gi] + ((i >> 2) * 32 + l) * 4 + (i & 3))] =
            static_cast<std::int32_t>(q);
      };
      if (residues == 0) {
        for (std::int64_t i = 0; i < n; ++i) put(i, S + i);
        continue;
      }
      // The residue order: the i-th non-zero from residue ((l >> 1) + i) mod residues while the row has one,
      // else from the residue with the most left (the lowest on ties), each residue's in CSR order.
      std::size_t next[8] = {};
      for (int q = 0; q < residues; ++q) bucket[q].clear();
      for (std::int64_t i = 0; i < n; ++i)
        bucket[col16[static_cast<std::size_t>(S + i)] % residues].push_back(static_cast<std::int32_t>(S + i));
      for (std::int64_t i = 0; i < n; ++i) {
        int want = static_cast<int>(((l >> 1) + i) % residues);
        if (next[want] == bucket[want].size()) {
          std::size_t most = 0;
          for (int q = 0; q < residues; ++q)
            if (bucket[q].size() - next[q] > most) most = bucket[q].size() - next[q], want = q;
        }
        put(i, bucket[want][next[want]++]);
      }
    }
  }
  out = std::move(L);
  return true;
}

}  // namespace snk::cuda
