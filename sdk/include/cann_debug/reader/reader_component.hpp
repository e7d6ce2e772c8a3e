// The component every file reader is built from: it owns an ItemSource, emits its items in batches on
// the output ports named "records" (record.batch/1) and "metrics" (metric.batch/1), and implements the
// bad-input contract: what was read before a fault goes out first (records in a batch with partial=true
// and error set; metric points as they are), then the component throws std::runtime_error with the same
// message. A missing file fails at start().
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "cann_debug/component.hpp"
#include "cann_debug/reader/item_source.hpp"

namespace cann_debug::plugins::readers {

/// The sniff() score from which a reader claims a file as its own (folder readers, `claim: true`).
inline constexpr int kClaimScore = 50;

/// The first 64 KiB of a file, as sniff() sees them ("" when it cannot be read).
std::string file_head(const std::string& path);

struct ReaderContext {
  std::string path;  // the `path` option
  const Config& config;
  HostServices& host;
};

struct ReaderSpec {
  Manifest manifest;  // with a `path` option and output ports "records" and/or "metrics"
  /// Called at start(); may throw std::runtime_error (cannot open) or ParseError.
  std::function<std::unique_ptr<ItemSource>(const ReaderContext&)> open;
  std::function<int(const SniffInput&)> sniff;
  /// Cross-field rules beyond "path is not empty" (optional).
  std::function<std::vector<ConfigProblem>(const Config&)> validate;
  bool reads_directory = false;  // the path must be a folder, not a file
  /// The path may be a file or a folder (the source reads the files in it it claims); sniff() sees both
  /// (a reader that only wants files returns 0 for in.is_directory).
  /// Such readers get the option `claim` (bool, default false): a file their sniff() scores below
  /// kClaimScore is not read (nothing is emitted), so a pipeline can point them at whatever it was given.
  bool also_reads_directory = false;
  /// The schema of the records (RecordBatch::schema), unless an Items batch names its own.
  std::string schema;
};

class ReaderFactory final : public ComponentFactory {
 public:
  explicit ReaderFactory(ReaderSpec spec);
  const Manifest& manifest() const override { return spec_.manifest; }
  std::vector<ConfigProblem> validate(const Config& config) const override;
  std::unique_ptr<Component> create(const CreateContext& ctx, const Config& config) const override;
  int sniff(const SniffInput& input) const override;

 private:
  ReaderSpec spec_;
};

}  // namespace cann_debug::plugins::readers
