// ascend_profiler_dir: every profiler file of a run's folder (all ranks and the cluster analysis), with
// the rank of each per-rank file taken from its *_ascend_pt folder.
#include "ascend_profiler_dir.hpp"

#include <set>

#include <fmt/format.h>

#include "ascend_files/file_kinds.hpp"
#include "ascend_files/profiler_tree.hpp"
#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/reader_component.hpp"
#include "cann_debug/reader/reader_options.hpp"

namespace cann_debug::plugins {
namespace {

using ascend::AscendFileKind;
using ascend::ProfilerFile;

class DirSource final : public readers::ItemSource {
 public:
  DirSource(const readers::ReaderContext& ctx)
      : host_(ctx.host),
        options_(ascend::file_options(ctx.config)),
        skip_(ctx.config.str("bad_file") == "skip") {
    std::set<std::string> wanted;
    for (const auto& k : ctx.config.strings("files")) wanted.insert(k);
    const bool cluster = ctx.config.boolean("cluster");
    // optional: a folder without profiler files is no more an error than a missing one.
    const bool optional = ctx.config.has("optional") && ctx.config.boolean("optional");
    for (auto& f :
         ascend::find_profiler_files(ctx.path, static_cast<int>(ctx.config.integer("max_depth")), optional))
      if ((wanted.empty() || wanted.contains(std::string(ascend::to_string(f.kind)))) &&
          (cluster || !f.cluster))
        files_.push_back(std::move(f));
    host_.logger().info("{}: {} profiler file(s)", ctx.path, files_.size());
  }

  bool next(readers::Items& out, std::size_t max_items) override {
    while (index_ < files_.size()) {
      const ProfilerFile& file = files_[index_];
      out.source_path = file.path;
      out.schema = ascend::record_schema(file.kind);
      try {
        if (!current_) {
          ascend::AscendFileOptions o = options_;
          o.rank = file.rank;
          try {
            current_ = ascend::open_ascend_file(file.kind, file.path, o);
          } catch (const readers::ParseError&) {
            throw;
          } catch (const std::runtime_error& e) {  // cannot open: a fault of this file like any other
            throw readers::ParseError(e.what());
          }
        }
        if (!current_->next(out, max_items)) advance();
      } catch (const readers::ParseError& e) {
        if (!skip_) throw;
        host_.logger().warn("skipping the rest of {}", e.what());
        out.error = e.what();
        advance();
        return index_ < files_.size();
      }
      if (!out.records.empty() || !out.metrics.empty()) return index_ < files_.size();
    }
    return false;
  }

 private:
  void advance() {
    current_.reset();
    ++index_;
  }

  HostServices& host_;
  ascend::AscendFileOptions options_;
  bool skip_;
  std::vector<ProfilerFile> files_;
  std::size_t index_ = 0;
  std::unique_ptr<readers::ItemSource> current_;
};

readers::ReaderSpec ascend_profiler_dir_spec() {
  Manifest m;
  m.type = "ascend_profiler_dir";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Reads every Ascend profiler file of a run's folder (all ranks and cluster analysis), rank per file";
  m.outputs = {{"records", std::string(RecordBatch::type_id), "records of every file, one file per batch"},
               {"metrics", std::string(MetricBatch::type_id), "metric points of every file"}};
  m.options = {
      readers::path_option("the folder holding the *_ascend_pt folders and/or cluster_analysis_output"),
      readers::batch_size_option(),
      readers::max_line_bytes_option(),
      readers::max_file_bytes_option(),
      readers::node_option(),
      {.name = "bad_file",
       .type = OptionType::kEnum,
       .description =
           "what a bad file does: fail (stop the reader) or skip (report it in a partial batch, go on)",
       .default_value = "fail",
       .enum_values = {"fail", "skip"}},
      {.name = "files",
       .type = OptionType::kStringList,
       .description = "which kinds to read (step_trace_time, kernel_details, op_statistic, communication, "
                      "communication_matrix, memory_record, operator_memory, npu_module_mem); empty = all",
       .default_value = nlohmann::json::array()},
      {.name = "cluster",
       .type = OptionType::kBool,
       .description = "read the cluster_analysis_output files too (false: only the ranks' own files, for a "
                      "pipeline that reads the cluster files with readers of their own)",
       .default_value = true},
      {.name = "max_depth",
       .type = OptionType::kInt,
       .description = "how many folder levels below path are searched",
       .default_value = 6,
       .min = 1,
       .max = 64},
  };
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "ascend_profiler_dir/run:\n"
      "  path: \"${input}\"          # holds *_ascend_pt/ and cluster_analysis_output/\n"
      "  files: [step_trace_time, communication]\n"
      "  bad_file: skip\n";
  readers::ReaderSpec spec;
  spec.manifest = std::move(m);
  spec.open = [](const readers::ReaderContext& ctx) -> std::unique_ptr<readers::ItemSource> {
    return std::make_unique<DirSource>(ctx);
  };
  spec.sniff = [](const SniffInput& in) { return ascend::sniff_profiler_dir(in.path); };
  spec.validate = [](const Config& config) -> std::vector<ConfigProblem> {
    static const std::set<std::string> kKinds = {"step_trace_time", "kernel_details",       "op_statistic",
                                                 "communication",   "communication_matrix", "memory_record",
                                                 "operator_memory", "npu_module_mem"};
    std::vector<ConfigProblem> problems;
    for (const auto& k : config.strings("files"))
      if (!kKinds.contains(k))
        problems.push_back(
            {"files", fmt::format("unknown file kind '{}' (expected step_trace_time, kernel_details, "
                                  "op_statistic, communication, communication_matrix, memory_record, "
                                  "operator_memory or npu_module_mem)",
                                  k)});
    return problems;
  };
  // A folder, or one profiler file named on its own (what `files` and `cluster` allow of it).
  spec.also_reads_directory = true;
  return spec;
}

}  // namespace

const ComponentFactory& ascend_profiler_dir_factory() {
  static const readers::ReaderFactory factory(ascend_profiler_dir_spec());
  return factory;
}

}  // namespace cann_debug::plugins
