// spmm/row_lanes_layout.cpp: builds the interleaved, length-sorted order of rowlanes_kernel (row_lanes_layout.hpp).
#include "spmm/row_lanes_layout.hpp"

#include <algorithm>
#include <numeric>

#include "spmm/host_threads.hpp"

namespace snk::cuda {

namespace {

// The load phases of a group (lanes 8 q .. 8 q + 7) split by the 16-byte piece of their X' rows each lane reads first
// (lane mod pieces, csr_rowlanes.cuh) into 4 pieces "piece-phases" of 8 / pieces lanes each: lanes 8 q + pieces j + h
// (j = 0 .. 8 / pieces - 1) of phase q read piece h at once, so that those whose columns share a residue class
// share a bank group. Piece-phase (lane >> 3) pieces + (lane mod pieces).
int phase_of(int lane, int pieces) { return (lane >> 3) * pieces + (lane & (pieces - 1)); }
int phase_lane(int phase, int j, int pieces) { return 8 * (phase / pieces) + pieces * j + phase % pieces; }

// Rearranges one group's slots (row, len: its 32 slots; bucket[lane][class]: each slot's non-zeros by residue
// class, moved with their slot) so that the rows of each piece-phase hold their residue classes as evenly as
// possible: a piece-phase needs at least as many load steps as its most frequent class has non-zeros (the classes'
// totals over its rows), so one whose rows all run long in one class conflicts at their tails. Exchanges pairs
// of slots of different piece-phases while that lowers the sum over the group of each one's most frequent class (at
// most four sweeps over the 32 x 32 pairs); the rows stay in their group, so the lengths, chunk counts and pads do
// not change. It lowers the bound this sets on the mean wavefronts of a load phase (the figures:
// bench/results/spmm-dispatch-rules.md).
void balance_phases(std::int32_t* row, std::int32_t* len, std::vector<std::int32_t> (&bucket)[32][8], int residues,
                    int pieces) {
  std::int64_t total[32][8] = {};
  auto count = [&](int l, int k) { return static_cast<std::int64_t>(bucket[l][k].size()); };
  for (int l = 0; l < 32; ++l)
    for (int k = 0; k < residues; ++k) total[phase_of(l, pieces)][k] += count(l, k);
  auto most = [&](const std::int64_t* t) { return *std::max_element(t, t + residues); };
  for (int sweep = 0; sweep < 4; ++sweep) {
    bool changed = false;
    for (int a = 0; a < 32; ++a)
      for (int b = a + 1; b < 32; ++b) {
        const int ha = phase_of(a, pieces), hb = phase_of(b, pieces);
        if (ha == hb || row[a] < 0 || row[b] < 0) continue;   // slots past the last row stay empty
        std::int64_t ta[8], tb[8];
        for (int k = 0; k < residues; ++k) {
          ta[k] = total[ha][k] - count(a, k) + count(b, k);
          tb[k] = total[hb][k] - count(b, k) + count(a, k);
        }
        if (most(ta) + most(tb) >= most(total[ha]) + most(total[hb])) continue;
        std::copy(ta, ta + residues, total[ha]);
        std::copy(tb, tb + residues, total[hb]);
        std::swap(row[a], row[b]);
        std::swap(len[a], len[b]);
        for (int k = 0; k < residues; ++k) bucket[a][k].swap(bucket[b][k]);
        changed = true;
      }
    if (!changed) break;
  }
}

// Orders the non-zeros of the n lanes of one piece-phase (bucket[lane][class]: the lane's non-zeros of each
// residue class, in CSR order), step by step: at each step the lanes that still have non-zeros take one each,
// the lane with the fewest classes left first (the lowest lane on ties), each from the class not yet taken at
// this step with the most left in its row plus the most left in the piece-phase (so no class is left to pile up at
// the tails); a lane all of whose classes are taken at this step takes its largest. put(lane, i, csr) places the
// lane's i-th. It leaves fewer mean wavefronts per load phase than one fixed rotation of the classes per lane (the
// figures: bench/results/spmm-dispatch-rules.md).
template <class Put>
void schedule_phase(const int (&lanes)[8], int n, std::vector<std::int32_t> (&bucket)[32][8], int residues, Put put) {
  std::size_t next[8][8] = {};
  std::int64_t left[8][8] = {}, phase_left[8] = {};
  for (int j = 0; j < n; ++j)
    for (int k = 0; k < residues; ++k) {
      left[j][k] = static_cast<std::int64_t>(bucket[lanes[j]][k].size());
      phase_left[k] += left[j][k];
    }
  for (std::int64_t i = 0;; ++i) {
    int order[8], active = 0, classes[8] = {};
    for (int j = 0; j < n; ++j) {
      for (int k = 0; k < residues; ++k) classes[j] += left[j][k] > 0;
      if (classes[j] > 0) order[active++] = j;
    }
    if (active == 0) return;
    for (int t = 1; t < active; ++t)   // fewest classes first, stable (insertion sort: at most eight)
      for (int u = t; u > 0 && classes[order[u]] < classes[order[u - 1]]; --u) std::swap(order[u], order[u - 1]);
    bool taken[8] = {};
    for (int t = 0; t < active; ++t) {
      const int j = order[t];
      int pick = -1;
      std::int64_t best = -1;
      for (int pass = 0; pass < 2 && pick < 0; ++pass)   // a free class first; else the lane's largest
        for (int k = 0; k < residues; ++k) {
          if (left[j][k] == 0 || (pass == 0 && taken[k])) continue;
          const std::int64_t score = pass == 0 ? left[j][k] + phase_left[k] : left[j][k];
          if (score > best) best = score, pick = k;
        }
      taken[pick] = true;
      put(lanes[j], i, bucket[lanes[j]][pick][next[j][pick]++]);
      --left[j][pick];
      --phase_left[pick];
    }
  }
}

// Range u's first row given a block's prefix weights (prefix[r]: the weight of rows 0 .. r - 1; row_lanes_layout.hpp).
std::int32_t lanes_range_edge(const std::vector<std::int64_t>& prefix, std::int32_t n_ranges, std::int32_t u) {
  const std::int32_t rows = static_cast<std::int32_t>(prefix.size()) - 1;
  if (u <= 0) return 0;
  if (u >= n_ranges) return rows;
  // floor(total u / n_ranges) without overflow, then the first row boundary whose prefix reaches it.
  const std::int64_t total = prefix.back();
  const std::int64_t want = total / n_ranges * u + total % n_ranges * u / n_ranges;
  return static_cast<std::int32_t>(std::lower_bound(prefix.begin(), prefix.end(), want) - prefix.begin());
}

}  // namespace

bool build_row_lanes_layout(const HeldSegments& seg, std::int64_t nnz, std::int32_t n_ranges,
                            RowLanesLayout& out, const std::uint16_t* col16, int residues, int pieces, int threads) {
  out = RowLanesLayout{};
  if (n_ranges <= 0 || seg.rows < 0 || nnz < 0) return false;
  if (residues < 0 || residues > 8 || (residues > 0 && !col16 && nnz > 0)) return false;
  if (pieces != 1 && pieces != 2 && pieces != 4 && pieces != 8) return false;
  if (!seg.tiles(nnz)) return false;
  const int nb = seg.n_blocks();
  const std::int32_t rows = seg.rows;

  RowLanesLayout L;
  L.n_blocks = nb;
  L.rows = rows;
  L.n_ranges = n_ranges;
  // Each block's ranges: rows [range_first[c][u], range_first[c][u + 1]), about equal in weight (segment length
  // + 1 per row, row_lanes_layout.hpp).
  L.range_first.assign(static_cast<std::size_t>(nb) * (static_cast<std::size_t>(n_ranges) + 1), 0);
  std::int32_t widest = 0;
  {
    std::vector<std::int64_t> prefix(static_cast<std::size_t>(rows) + 1);
    for (int c = 0; c < nb; ++c) {
      prefix[0] = 0;
      for (std::int32_t r = 0; r < rows; ++r)
        prefix[static_cast<std::size_t>(r) + 1] =
            prefix[static_cast<std::size_t>(r)] + seg.end(c, r) - seg.begin(c, r) + 1;
      std::int32_t* edge = &L.range_first[static_cast<std::size_t>(c) * (static_cast<std::size_t>(n_ranges) + 1)];
      for (std::int32_t u = 0; u <= n_ranges; ++u) edge[u] = lanes_range_edge(prefix, n_ranges, u);
      for (std::int32_t u = 0; u < n_ranges; ++u) widest = std::max(widest, edge[u + 1] - edge[u]);
    }
  }
  L.groups_per_range = (widest + 31) / 32;
  if (std::int64_t(L.groups_per_range) * n_ranges >= (std::int64_t(1) << 26)) return false;
  const std::int32_t n_groups = L.groups_per_range * n_ranges;
  L.n_groups = n_groups;
  const std::size_t groups = static_cast<std::size_t>(nb) * static_cast<std::size_t>(n_groups);
  L.group_start.assign(groups, 0);
  L.group_chunks.assign(groups, 0);
  L.slot_row.assign(groups * 32, -1);
  L.slot_len.assign(groups * 32, 0);
  // Pass 1: each (column block, row range)'s slots and its groups' chunk counts, then the groups' starts in order.
  for_each_range(std::int64_t(nb) * n_ranges, 16, [&](std::int64_t u0, std::int64_t u1) {
    std::vector<std::int32_t> order;
    for (std::int64_t u = u0; u < u1; ++u) {
      const int c = static_cast<int>(u / n_ranges);
      const std::int32_t ur = static_cast<std::int32_t>(u % n_ranges);
      const std::int32_t* edge = &L.range_first[static_cast<std::size_t>(c) * (static_cast<std::size_t>(n_ranges) + 1)];
      const std::int32_t r0 = edge[ur], r1 = edge[ur + 1];
      order.resize(static_cast<std::size_t>(r1 - r0));
      std::iota(order.begin(), order.end(), r0);
      auto len = [&](std::int32_t r) { return seg.end(c, r) - seg.begin(c, r); };
      std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) { return len(a) > len(b); });
      const std::size_t g_first =
          static_cast<std::size_t>(c) * n_groups + static_cast<std::size_t>(ur) * L.groups_per_range;
      for (std::size_t i = 0; i < order.size(); ++i) {
        L.slot_row[g_first * 32 + i] = order[i];
        L.slot_len[g_first * 32 + i] = static_cast<std::int32_t>(len(order[i]));
      }
      for (std::int32_t g = 0; g < L.groups_per_range; ++g) {
        const std::size_t gi = g_first + static_cast<std::size_t>(g);
        std::int32_t most = 0;
        for (int l = 0; l < 32; ++l) most = std::max(most, L.slot_len[gi * 32 + static_cast<std::size_t>(l)]);
        L.group_chunks[gi] = (most + 3) / 4;
      }
    }
  }, threads);
  std::int64_t pos = 0;
  for (std::size_t gi = 0; gi < groups; ++gi) {
    L.group_start[gi] = pos;
    pos += std::int64_t(L.group_chunks[gi]) * 128;
  }
  if (pos >= (std::int64_t(1) << 31)) return false;
  // Pass 2: the positions, group by group.
  L.perm.assign(static_cast<std::size_t>(pos), -1);
  for_each_range(static_cast<std::int64_t>(groups), 64, [&](std::int64_t g0, std::int64_t g1) {
    std::vector<std::int32_t> bucket[32][8];
    for (std::size_t gi = static_cast<std::size_t>(g0); gi < static_cast<std::size_t>(g1); ++gi) {
      const int c = static_cast<int>(gi / static_cast<std::size_t>(n_groups));
      auto put = [&](int l, std::int64_t i, std::int64_t q) {
        L.perm[static_cast<std::size_t>(L.group_start[gi] + ((i >> 2) * 32 + l) * 4 + (i & 3))] =
            static_cast<std::int32_t>(q);
      };
      if (residues == 0) {
        for (int l = 0; l < 32; ++l) {
          const std::int32_t r = L.slot_row[gi * 32 + static_cast<std::size_t>(l)];
          if (r < 0) continue;
          const std::int64_t S = seg.begin(c, r), n = L.slot_len[gi * 32 + static_cast<std::size_t>(l)];
          for (std::int64_t i = 0; i < n; ++i) put(l, i, S + i);
        }
        continue;
      }
      // The residue order: each slot's non-zeros by class, the group's slots rearranged (balance_phases), then one
      // piece-phase at a time: its lanes read the same piece of their X' rows at once, so they should take
      // distinct residue classes at every step (schedule_phase).
      for (int l = 0; l < 32; ++l) {
        for (int k = 0; k < residues; ++k) bucket[l][k].clear();
        const std::int32_t r = L.slot_row[gi * 32 + static_cast<std::size_t>(l)];
        if (r < 0) continue;
        const std::int64_t S = seg.begin(c, r), n = L.slot_len[gi * 32 + static_cast<std::size_t>(l)];
        for (std::int64_t q = S; q < S + n; ++q)
          bucket[l][col16[static_cast<std::size_t>(q)] % residues].push_back(static_cast<std::int32_t>(q));
      }
      balance_phases(&L.slot_row[gi * 32], &L.slot_len[gi * 32], bucket, residues, pieces);
      const int n = 8 / pieces;
      for (int phase = 0; phase < 4 * pieces; ++phase) {
        int lanes[8] = {};
        for (int j = 0; j < n; ++j) lanes[j] = phase_lane(phase, j, pieces);
        schedule_phase(lanes, n, bucket, residues, put);
      }
    }
  }, threads);
  out = std::move(L);
  return true;
}

}  // namespace snk::cuda
