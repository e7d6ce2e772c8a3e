// Tests of the shared reader support: numbers, names, CSV rows, JSON documents and their error positions.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "cann_debug/reader/byte_source.hpp"
#include "cann_debug/reader/csv_cells.hpp"
#include "cann_debug/reader/csv_reader.hpp"
#include "cann_debug/reader/json_document.hpp"
#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/text.hpp"
#include "readers_test_support.hpp"

namespace cann_debug::plugins::readers {
namespace {

using ::testing::HasSubstr;

std::string read_all(ByteSource& source, std::size_t chunk) {
  std::string out;
  std::string buf(chunk, '\0');
  while (std::size_t n = source.read(buf.data(), buf.size())) out.append(buf.data(), n);
  return out;
}

// The same bytes come out of a file and out of memory, plain or gzip (chosen by the magic bytes).
TEST(ByteSources, FileAndMemoryPlainAndGzipGiveTheSameBytes) {
  const std::string gz_path = std::string(CANN_DEBUG_TEST_DATA_DIR) + "/traces/kineto_small.json.gz";
  const std::string plain_path = std::string(CANN_DEBUG_TEST_DATA_DIR) + "/traces/kineto_small.json";
  std::ifstream gz_in(gz_path, std::ios::binary), plain_in(plain_path, std::ios::binary);
  std::stringstream gz_bytes, plain_bytes;
  gz_bytes << gz_in.rdbuf();
  plain_bytes << plain_in.rdbuf();
  ASSERT_TRUE(has_gzip_magic(gz_bytes.str()));
  auto from_file = open_byte_source(gz_path);
  EXPECT_TRUE(from_file->compressed());
  const std::string expected = read_all(*open_byte_source(plain_path), 4096);
  EXPECT_EQ(read_all(*from_file, 7), expected);
  auto from_memory = memory_byte_source(gz_bytes.str(), "upload.json.gz");
  EXPECT_TRUE(from_memory->compressed());
  EXPECT_EQ(read_all(*from_memory, 100), expected);
  auto plain_memory = memory_byte_source(plain_bytes.str());
  EXPECT_FALSE(plain_memory->compressed());
  EXPECT_EQ(read_all(*plain_memory, 3), expected);
  EXPECT_EQ(read_all(*memory_byte_source(""), 16), "");
}

TEST(ByteSources, CorruptGzipInMemoryNamesItsSource) {
  std::string bytes = "\x1f\x8b\x08\x00garbage that is not deflate data";
  auto source = memory_byte_source(bytes, "bad.gz");
  try {
    read_all(*source, 64);
    FAIL() << "no error for corrupt gzip";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("bad.gz"));
  }
}

TEST(Numbers, DecimalTextScalesExactly) {
  EXPECT_EQ(decimal_scaled("1699529622790614.8", 3), 1699529622790614800);
  EXPECT_EQ(decimal_scaled("1704161511420306.491", 3), 1704161511420306491);
  EXPECT_EQ(decimal_scaled("1702866902796675.123", 3), 1702866902796675123);
  EXPECT_EQ(decimal_scaled("1.5e3", 3), 1500000);
  EXPECT_EQ(decimal_scaled("+7", 0), 7);
  EXPECT_EQ(decimal_scaled("-2.5", 0), -3);  // half away from zero
  EXPECT_EQ(decimal_scaled("0.0004", 3), 0);
  EXPECT_EQ(decimal_scaled("0.0005", 3), 1);
  EXPECT_EQ(decimal_scaled(".25", 2), 25);
  EXPECT_EQ(decimal_scaled("000123.4500", 2), 12345);
  EXPECT_EQ(decimal_scaled("abc", 3), std::nullopt);
  EXPECT_EQ(decimal_scaled("1.2.3", 3), std::nullopt);
  EXPECT_EQ(decimal_scaled("1e400", 0), std::nullopt);
  EXPECT_EQ(decimal_scaled("99999999999999999999", 0), std::nullopt);
  EXPECT_EQ(decimal_scaled("", 0), std::nullopt);
}

TEST(Numbers, DoublesWrittenByPythonKeepTheirDigits) {
  // A double cannot hold 1695054582707330.2 (its neighbours are .0 and .25); its shortest text can.
  EXPECT_EQ(double_scaled(1695054582707330.2, 3), 1695054582707330200);
  EXPECT_EQ(double_scaled(1695054582608213.0, 3), 1695054582608213000);
  EXPECT_EQ(double_scaled(121.73694384375, 6), 121736944);
  EXPECT_EQ(double_scaled(0.00015000000000000001, 6), 150);
  EXPECT_EQ(double_scaled(std::nan(""), 3), std::nullopt);
}

TEST(Numbers, ParseDoubleIsStrict) {
  EXPECT_EQ(parse_double("1e5"), 1e5);
  EXPECT_EQ(parse_double("-0.5"), -0.5);
  EXPECT_EQ(parse_double("+3"), 3.0);
  EXPECT_EQ(parse_double("8.07084E+13"), 8.07084e13);
  EXPECT_TRUE(std::isinf(*parse_double("+Inf")));
  EXPECT_TRUE(std::isinf(*parse_double("-Infinity")));
  EXPECT_TRUE(std::isnan(*parse_double("NaN")));
  for (const char* bad : {"", " 1", "1 ", "0x10", "1.5abc", "e5", "--1", "+-1", "1e99999", "inf inity"})
    EXPECT_EQ(parse_double(bad), std::nullopt) << bad;
  EXPECT_EQ(parse_int("-12"), -12);
  EXPECT_EQ(parse_int("1.0"), std::nullopt);
  EXPECT_EQ(parse_uint("-1"), std::nullopt);
  EXPECT_EQ(parse_uint("18446744073709551615"), 18446744073709551615ull);
}

TEST(Text, SnakeCaseOfHeaderSpellings) {
  const std::pair<const char*, const char*> cases[] = {
      {"Start Time(us)", "start_time_us"},
      {"Step Id", "step_id"},
      {"Step ID", "step_id"},
      {"Block Dim", "block_dim"},
      {"Device_id", "device_id"},
      {"Ratio(%)", "ratio_pct"},
      {"Communication(Not Overlapped)", "communication_not_overlapped"},
      {"Communication(Not Overlapped and Exclude Receive)",
       "communication_not_overlapped_and_exclude_receive"},
      {"aicore_time(us)", "aicore_time_us"},
      {"rxPacket/s", "rx_packet_s"},
      {"NpuID(Idx)", "npu_id_idx"},
      {"AICore(%)", "ai_core_pct"},
      {"Aicore curFreq(MHZ)", "aicore_cur_freq_mhz"},
      {"HBMUsage", "hbm_usage"},
      {"HF32 Eligible", "hf32_eligible"},
      {"Transit Size(MB)", "transit_size_mb"},
      {"  ", ""},
  };
  for (const auto& [in, out] : cases) EXPECT_EQ(snake_case(in), out) << in;
}

TEST(Text, RecognisesBinary) {
  EXPECT_EQ(why_not_text("plain, text\twith tab"), "");
  EXPECT_EQ(why_not_text("中文 ok"), "");
  EXPECT_EQ(why_not_text(std::string("ab\0c", 4)),
            "expected text, got the control byte \\x00 at column 3 (binary data?)");
  EXPECT_EQ(why_not_text("ab\xff"),
            "expected UTF-8 text, got the byte \\xff at column 3 (binary data or another encoding?)");
  EXPECT_EQ(invalid_utf8_at("\xc0\xaf"), 0u);      // overlong
  EXPECT_EQ(invalid_utf8_at("\xed\xa0\x80"), 0u);  // surrogate
}

std::vector<CsvRow> read_csv(const std::string& text, std::size_t max = 1 << 20) {
  std::istringstream in(text);
  CsvReader csv(in, "t.csv", max);
  std::vector<CsvRow> rows;
  CsvRow row;
  while (csv.next(row)) rows.push_back(row);
  return rows;
}

std::string csv_error(const std::string& text, std::size_t max = 1 << 20) {
  try {
    read_csv(text, max);
  } catch (const ParseError& e) {
    return e.what();
  }
  return {};
}

TEST(Csv, QuotesEscapesNewlinesAndQuirks) {
  const auto rows = read_csv(
      "\xEF\xBB\xBF"
      "a,b,c\r\n"
      "1,\"\"\"4,1025;2\"\"\",\"x\ny\"\n"
      "\n"
      "2,\"q\" ,z\"w\n"
      "3,,\n");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].cells, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(rows[1].cells, (std::vector<std::string>{"1", "\"4,1025;2\"", "x\ny"}));
  EXPECT_EQ(rows[1].line, 2);
  EXPECT_EQ(rows[1].offset, 10u);
  EXPECT_EQ(rows[2].line, 5);  // the quoted newline and the blank line are counted
  EXPECT_EQ(rows[2].cells, (std::vector<std::string>{"2", "q", "z\"w"}));
  EXPECT_EQ(rows[3].cells, (std::vector<std::string>{"3", "", ""}));
}

TEST(Csv, ErrorsNameTheLineAndOffset) {
  EXPECT_EQ(
      csv_error("a,b\n1,\"x\"y\n"),
      "t.csv:2: expected ',' or the end of the row after the closing quote of field 2, got 'y' at column 6 "
      "(line starts at byte offset 4)");
  EXPECT_EQ(
      csv_error("a,b\n1,\"open\n2,3\n"),
      "t.csv:2: expected a closing quote for a field opened in the row starting on this line, got the end of "
      "the file (line starts at byte offset 4)");
  EXPECT_EQ(
      csv_error("a,b\n" + std::string(100, 'x') + "\n", 64),
      "t.csv:2: expected a line of at most max_line_bytes = 64 bytes, got a longer one (binary data or a "
      "missing newline?) (line starts at byte offset 4)");
  EXPECT_EQ(csv_error("a,b\n\"" + std::string(40, 'x') + "\n" + std::string(40, 'y') + "\"\n", 64),
            "t.csv:2: expected a row of at most max_line_bytes = 64 bytes, got a longer one (an unterminated "
            "quote?) (line starts at byte offset 4)");
  EXPECT_EQ(
      csv_error(std::string("a,b\n1,\x01\n")),
      "t.csv:2: expected text, got the control byte \\x01 at column 3 (binary data?) (line starts at byte "
      "offset 4)");
}

TEST(Csv, TypedCells) {
  EXPECT_EQ(typed_cell(" 42\t"), 42);
  EXPECT_EQ(typed_cell("1.5"), 1.5);
  EXPECT_EQ(typed_cell("N/A"), nullptr);
  EXPECT_EQ(typed_cell("na"), nullptr);
  EXPECT_EQ(typed_cell(""), nullptr);
  EXPECT_EQ(typed_cell("NaN"), "nan");
  EXPECT_EQ(typed_cell("-Infinity"), "-inf");
  EXPECT_EQ(typed_cell("MatMul"), "MatMul");
  EXPECT_EQ(typed_cell("123", CellKind::kString), "123");
  EXPECT_EQ(typed_cell("4294967295", CellKind::kId), nullptr);
  EXPECT_EQ(typed_cell("4294967295"), 4294967295ll);
  EXPECT_EQ(typed_cell("\"4,1025;2\"", CellKind::kShape), "4,1025;2");
  EXPECT_EQ(typed_cell("18446744073709551615"), 18446744073709551615ull);
}

TEST(Csv, HeaderAliasesAndDuplicates) {
  CsvRow header{{"Step ID", "Block Dim", "Name"}, 1, 0};
  const auto cols = read_header(header, "k.csv", {{"block_dim", "block_num"}});
  EXPECT_EQ(cols[0].name, "step_id");
  EXPECT_EQ(cols[1].name, "block_num");
  EXPECT_EQ(cols[1].original, "Block Dim");
  CsvRow dup{{"Step Id", "Name", "Step ID"}, 1, 0};
  try {
    read_header(dup, "k.csv");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_STREQ(
        e.what(),
        "k.csv:1: expected unique column names, but 'Step Id' (column 1) and 'Step ID' (column 3) both mean "
        "'step_id' (line starts at byte offset 0)");
  }
}

TEST(Json, NonFiniteTokensOfPythonAreStrings) {
  const auto doc =
      parse_json_text("d.json", "{\"a\": NaN, \"b\": \"NaN\", \"c\": -Infinity, \"d\": [Infinity]}");
  EXPECT_EQ(doc.root["a"], "nan");
  EXPECT_EQ(doc.root["b"], "NaN");
  EXPECT_EQ(doc.root["c"], "-inf");
  EXPECT_EQ(doc.root["d"][0], "inf");
}

TEST(Json, SyntaxErrorsNameLineAndOffsetOfTheFileAsWritten) {
  try {
    parse_json_text("d.json", "{\"a\": NaN,\n \"b\": tru}");
    FAIL();
  } catch (const ParseError& e) {
    // The NaN before the fault is rewritten to "nan" (+2 bytes): the offset still counts the file's bytes.
    EXPECT_THAT(e.what(), ::testing::StartsWith("d.json:2: expected valid JSON, got syntax error"));
    EXPECT_THAT(e.what(), HasSubstr("(at byte offset 20)"));
  }
}

TEST(Json, LocatesValuesForSemanticErrors) {
  const std::string text = "{\n  \"x\": {\"y\": [1, {\"z\": \"bad\"}]},\n  \"w\": 2\n}";
  const auto doc = parse_json_text("d.json", text);
  EXPECT_EQ(locate_json_value(text, {"x", "y", "1", "z"}), text.find("\"z\""));
  EXPECT_EQ(locate_json_value(text, {"w"}), text.find("\"w\""));
  EXPECT_EQ(locate_json_value(text, {"nope"}), std::nullopt);
  try {
    fail_at(doc, {"x", "y", "1", "z"}, "expected a number");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_STREQ(e.what(), "d.json:2: in /x/y/1/z: expected a number (at byte offset 20)");
  }
}

TEST(Json, EmptyDocumentsAreEmptyNotErrors) {
  EXPECT_TRUE(parse_json_text("d.json", "").empty);
  EXPECT_TRUE(parse_json_text("d.json", " \n\t").empty);
}

TEST(Json, LinesReportTheByteOfTheLine) {
  OrderedJson o;
  EXPECT_EQ(parse_json_line("{\"a\": 1}", o), "");
  EXPECT_THAT(parse_json_line("{\"a\": }", o), HasSubstr("at byte 6 of the line"));
  EXPECT_EQ(parse_json_line("{\"a\": " + std::string(600, '[') + std::string(600, ']') + "}", o),
            "expected a JSON object nested at most 512 levels deep");
}

}  // namespace
}  // namespace cann_debug::plugins::readers
