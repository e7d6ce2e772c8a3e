#include "table_map.hpp"

#include <algorithm>
#include <stdexcept>

namespace cann_debug::bayes {

IndexMap::IndexMap(const std::vector<int>& big, const std::vector<int>& small,
                   const std::vector<std::size_t>& card) {
  std::vector<std::size_t> small_stride(small.size());
  std::size_t stride = 1;
  for (std::size_t i = small.size(); i-- > 0;) {
    small_stride[i] = stride;
    stride *= card[static_cast<std::size_t>(small[i])];
  }
  std::size_t found = 0;
  for (int v : big) {
    const std::size_t c = card[static_cast<std::size_t>(v)];
    size_ *= c;
    if (c == 1) {
      found += std::count(small.begin(), small.end(), v) > 0 ? 1 : 0;
      continue;
    }
    std::size_t s = 0;
    for (std::size_t i = 0; i < small.size(); ++i)
      if (small[i] == v) {
        s = small_stride[i];
        ++found;
      }
    // Merge with the previous dimension when it steps the small index by exactly one run of this one.
    if (!dims_.empty() && strides_.back() == s * c) {
      dims_.back() *= c;
      strides_.back() = s;
    } else {
      dims_.push_back(c);
      strides_.push_back(s);
    }
  }
  if (found != small.size())
    throw std::logic_error("IndexMap: small table variables are not a subset of the big table's");
  if (dims_.size() > kMaxDims) throw std::logic_error("IndexMap: too many dimensions");
}

void project_add(const IndexMap& map, const double* big, double* small) {
  map.for_each_run([&](std::size_t b, std::size_t n, std::size_t s, std::size_t stride) {
    const double* src = big + b;
    if (stride == 0) {
      double acc = 0.0;
      for (std::size_t t = 0; t < n; ++t) acc += src[t];
      small[s] += acc;
    } else if (stride == 1) {
      double* dst = small + s;
      for (std::size_t t = 0; t < n; ++t) dst[t] += src[t];
    } else {
      for (std::size_t t = 0; t < n; ++t) small[s + t * stride] += src[t];
    }
  });
}

void multiply_in(const IndexMap& map, double* big, const double* small) {
  map.for_each_run([&](std::size_t b, std::size_t n, std::size_t s, std::size_t stride) {
    double* dst = big + b;
    if (stride == 0) {
      const double f = small[s];
      for (std::size_t t = 0; t < n; ++t) dst[t] *= f;
    } else if (stride == 1) {
      const double* src = small + s;
      for (std::size_t t = 0; t < n; ++t) dst[t] *= src[t];
    } else {
      for (std::size_t t = 0; t < n; ++t) dst[t] *= small[s + t * stride];
    }
  });
}

}  // namespace cann_debug::bayes
