// Whether the batches hold a random mix of the classes or a few of them, read from the output layer's bias
// gradient. For softmax cross-entropy that gradient is the batch mean of (softmax - one-hot): over a batch
// drawn at random the classes balance and it shrinks as 1/sqrt(B) against the per-sample error, over a
// batch of one or a few classes (data sorted by label, written class by class in blocks or shards) every
// sample pulls the same way and it does not shrink. The same batches in the same order every epoch (a
// reused permutation of mixed data) stay mixed: harmless, and not counted. Unlike the epoch tests this needs
// no epoch to repeat, so it sees shards read with a shard-level shuffle (docs/features-training.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "feature_list.hpp"
#include "training_log.hpp"

namespace cann_debug::plugins::training_detail {

/// Appends `grad.output_bias_imbalance`: the median over the rows whose loss is at least a tenth of the first
/// of ||gradient of the output layer's bias|| x sqrt(batch size) / (1 - e^-loss) (the per-sample error the
/// loss implies; about 1 for batches drawn at random, several for batches of a few classes). The output layer
/// is `output_bias` (output_layer_bias of the whole log); absent without a batch size, such a bias, or 10
/// such rows.
void add_batch_class_mix_feature(const std::vector<LogRow>& rows, std::optional<std::int64_t> batch_size,
                                 const std::optional<std::string>& output_bias, FeatureList& out);

}  // namespace cann_debug::plugins::training_detail
