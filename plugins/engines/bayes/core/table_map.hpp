// Index walks between a table and a table over a subset of its variables, and the two kernels every
// engine here is built from: sum-projection onto the subset and multiplication by a subset table.
//
// Tables are dense arrays over an ordered list of variables with the last variable varying fastest.
// An IndexMap walks the big table in order and tracks the matching entry of the small one; adjacent
// dimensions that move the small index consistently are collapsed, so the walk is a loop over long
// contiguous runs (offset, count, small offset, small stride) with O(1) bookkeeping between runs.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

namespace cann_debug::bayes {

class IndexMap {
 public:
  IndexMap() = default;
  /// `big` and `small` are variable ids (small a subset of big, in the small table's own layout order);
  /// `card[id]` is the cardinality of variable id.
  IndexMap(const std::vector<int>& big, const std::vector<int>& small, const std::vector<std::size_t>& card);

  std::size_t big_size() const { return size_; }

  /// Calls f(big_offset, count, small_offset, small_stride) for every run of the big table, in order.
  template <typename F>
  void for_each_run(F&& f) const {
    const std::size_t k = dims_.size();
    if (k == 0) {
      f(std::size_t{0}, std::size_t{1}, std::size_t{0}, std::size_t{0});
      return;
    }
    const std::size_t inner = dims_[k - 1];
    const std::size_t inner_stride = strides_[k - 1];
    std::array<std::size_t, kMaxDims> counter{};
    std::size_t big = 0, small = 0;
    for (;;) {
      f(big, inner, small, inner_stride);
      big += inner;
      std::size_t d = k - 1;
      for (;;) {
        if (d == 0) return;
        --d;
        small += strides_[d];
        if (++counter[d] < dims_[d]) break;
        small -= strides_[d] * dims_[d];
        counter[d] = 0;
      }
    }
  }

  // A table of at most 2^63 entries has at most 63 dimensions of size >= 2.
  static constexpr std::size_t kMaxDims = 64;

 private:
  std::vector<std::size_t> dims_;     // collapsed sizes, outermost first
  std::vector<std::size_t> strides_;  // small-table stride per collapsed dimension (0: not in small)
  std::size_t size_ = 1;
};

/// small[map(i)] += big[i] for every entry i of big (small is not cleared first).
void project_add(const IndexMap& map, const double* big, double* small);
/// big[i] *= small[map(i)] for every entry i of big.
void multiply_in(const IndexMap& map, double* big, const double* small);

}  // namespace cann_debug::bayes
