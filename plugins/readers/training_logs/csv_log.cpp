// csv_log: a training log written as CSV with a header (Keras CSVLogger's log.csv, any numeric columns)
// -> record.batch/1, one record per row.
#include "csv_log.hpp"

#include <fstream>

#include <fmt/format.h>

#include "cann_debug/reader/csv_cells.hpp"
#include "cann_debug/reader/csv_reader.hpp"
#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/reader_component.hpp"
#include "cann_debug/reader/reader_options.hpp"
#include "cann_debug/reader/sniff_helpers.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins {
namespace {

constexpr const char* kStepColumns[] = {"step", "global_step", "step_id", "iteration", "iter"};
constexpr const char* kTimeColumns[] = {"time", "timestamp", "wall_time", "walltime"};

class CsvLogSource final : public readers::ItemSource {
 public:
  explicit CsvLogSource(const readers::ReaderContext& ctx)
      : path_(ctx.path),
        step_column_(ctx.config.str("step_column")),
        time_column_(ctx.config.str("time_column")),
        rank_(static_cast<std::int32_t>(ctx.config.integer("rank"))),
        node_(ctx.config.str("node")) {
    readers::open_input(path_, file_);
    csv_ = std::make_unique<readers::CsvReader>(file_, path_,
                                                static_cast<std::size_t>(ctx.config.bytes("max_line_bytes")));
  }

  bool next(readers::Items& out, std::size_t max_items) override {
    readers::CsvRow row;
    if (!header_read_) {
      header_read_ = true;
      if (!csv_->next(row)) return false;
      columns_ = readers::read_header(row, path_);
      step_ = pick(row, step_column_, kStepColumns, "step_column");
      time_ = pick(row, time_column_, kTimeColumns, "time_column");
      rank_column_ = readers::column_index(columns_, "rank");
    }
    while (out.records.size() < max_items) {
      if (!csv_->next(row)) {
        ragged_.finish(path_, out.warnings);
        return false;
      }
      Record r;
      r.line = row.line;
      r.fields = nlohmann::json::object();
      if (const auto had = ragged_.fit(row, columns_.size(), path_, out.warnings)) r.fields["_cells"] = had;
      for (std::size_t i = 0; i < columns_.size(); ++i)
        r.fields[columns_[i].name] = readers::typed_cell(row.cells[i]);
      keys(row, r);
      out.records.push_back(std::move(r));
    }
    return true;
  }

 private:
  // The column named by the option, or the first of `names` present (-1 when none).
  template <std::size_t N>
  int pick(const readers::CsvRow& header, const std::string& option, const char* const (&names)[N],
           std::string_view option_name) const {
    if (!option.empty()) {
      const int i = readers::column_index(columns_, readers::snake_case(option));
      if (i < 0)
        readers::fail_line(
            path_, header.line, header.offset,
            fmt::format("expected the column '{}' named by {}, the header has none", option, option_name));
      return i;
    }
    for (const char* n : names)
      if (int i = readers::column_index(columns_, n); i >= 0) return i;
    return -1;
  }

  void keys(const readers::CsvRow& row, Record& r) const {
    auto fail = [&](int column, std::string_view what) {
      readers::fail_line(
          path_, row.line, row.offset,
          fmt::format("expected {} in '{}', got '{}'", what,
                      readers::printable(columns_[static_cast<std::size_t>(column)].original),
                      readers::printable(readers::trim(row.cells[static_cast<std::size_t>(column)]))));
    };
    auto text = [&](int column) { return readers::trim(row.cells[static_cast<std::size_t>(column)]); };
    if (step_ >= 0 && !readers::is_na(text(step_))) {
      auto v = readers::parse_int(text(step_));
      if (!v)
        if (auto d = readers::parse_double(text(step_));
            d && *d >= 0 && *d < 9e18 && *d == static_cast<double>(static_cast<std::int64_t>(*d)))
          v = static_cast<std::int64_t>(*d);
      if (!v || *v < 0) fail(step_, "an integer step >= 0");
      r.key.step_id = *v;
    }
    if (time_ >= 0 && !readers::is_na(text(time_))) {
      auto ns = readers::decimal_scaled(text(time_), 9);
      if (!ns) fail(time_, "Unix seconds");
      r.key.timestamp_ns = *ns;
    }
    if (rank_column_ >= 0 && !readers::is_na(text(rank_column_))) {
      auto v = readers::parse_int(text(rank_column_));
      if (!v || *v < 0 || *v > INT32_MAX) fail(rank_column_, "a rank >= 0");
      r.key.rank = static_cast<std::int32_t>(*v);
    } else if (rank_ >= 0) {
      r.key.rank = rank_;
    }
    if (!node_.empty()) r.key.node_id = node_;
  }

  std::string path_;
  std::string step_column_;
  std::string time_column_;
  std::int32_t rank_;
  std::string node_;
  std::ifstream file_;
  std::unique_ptr<readers::CsvReader> csv_;
  std::vector<readers::CsvColumn> columns_;
  readers::RaggedRows ragged_;
  bool header_read_ = false;
  int step_ = -1;
  int time_ = -1;
  int rank_column_ = -1;
};

// A header of plain names over rows of mostly numbers; Keras' log.csv (epoch + loss/accuracy) scores higher.
int csv_log_sniff(const SniffInput& in) {
  const auto lines = readers::head_lines(in.head, 4);
  if (lines.size() < 2) return 0;
  const auto header = readers::csv_header(in.head);
  if (header.size() < 2) return 0;
  for (const auto& h : header)
    if (h.empty() || readers::snake_case(h).empty()) return 0;
  const auto cells = readers::split(lines[1], ',');
  if (cells.size() != header.size()) return 0;
  std::size_t numeric = 0;
  for (auto c : cells) numeric += readers::parse_double(readers::trim(c)) ? 1 : 0;
  if (numeric * 2 < cells.size()) return 0;
  const bool keras = readers::has_columns(header, {"epoch"}) &&
                     (readers::has_columns(header, {"loss"}) || readers::has_columns(header, {"accuracy"}));
  const bool steps = readers::has_columns(header, {"step"}) && readers::has_columns(header, {"loss"});
  return keras || steps ? 80 : 30;
}

readers::ReaderSpec csv_log_spec() {
  Manifest m;
  m.type = "csv_log";
  m.kind = ComponentKind::kReader;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Reads a CSV training log with a header (Keras CSVLogger log.csv, any columns): one record per row";
  m.outputs = {{"records", std::string(RecordBatch::type_id), "one record per row, in file order"}};
  m.options = {
      readers::path_option("the CSV log to read"),
      readers::batch_size_option(),
      readers::max_line_bytes_option(),
      readers::rank_option(),
      readers::node_option(),
      {.name = "step_column",
       .type = OptionType::kString,
       .description = "column holding the step (\"\" = step, global_step, step_id, iteration or iter)",
       .default_value = ""},
      {.name = "time_column",
       .type = OptionType::kString,
       .description = "column holding Unix seconds (\"\" = time, timestamp, wall_time or walltime)",
       .default_value = ""}};
  m.concurrency = Concurrency::serial();
  m.sample_yaml = "csv_log/keras:\n  path: \"${input}/log.csv\"\n  step_column: epoch\n";
  readers::ReaderSpec spec;
  spec.manifest = std::move(m);
  spec.open = [](const readers::ReaderContext& ctx) -> std::unique_ptr<readers::ItemSource> {
    return std::make_unique<CsvLogSource>(ctx);
  };
  spec.sniff = csv_log_sniff;
  return spec;
}

}  // namespace

const ComponentFactory& csv_log_factory() {
  static const readers::ReaderFactory factory(csv_log_spec());
  return factory;
}

}  // namespace cann_debug::plugins
