// BIF reader: both dialects of the shared corpus, the variants of other public files, and located errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "bayes_test_support.hpp"
#include "cann_debug/causal_graph/bif_parser.hpp"
#include "cann_debug/causal_graph/graph_loader.hpp"
#include "core/errors.hpp"

namespace cann_debug::bayes {
namespace {

using test::bif;
using test::bn_dir;
using test::have_bn;
using ::testing::HasSubstr;

const Variable& var(const Network& net, const std::string& name) {
  const int v = net.find(name);
  EXPECT_GE(v, 0) << name;
  return net.variables.at(static_cast<std::size_t>(v));
}

TEST(bayes_bif, BnlearnRowsAreReadByStateName) {
  // Rows deliberately out of order: the key, not the position, decides.
  const Network net = parse_bif(R"(network unknown {
}
variable lung { type discrete [ 2 ] { yes, no }; }
variable tub { type discrete [ 2 ] { yes, no }; }
variable either { type discrete [ 2 ] { yes, no }; }
probability ( lung ) { table 0.1, 0.9; }
probability ( tub ) { table 0.05, 0.95; }
probability ( either | lung, tub ) {
  (no, no) 0.0, 1.0;
  (yes, yes) 1.0, 0.0;
  (no, yes) 0.7, 0.3;
  (yes, no) 0.6, 0.4;
}
)",
                                "inline.bif");
  const Variable& either = var(net, "either");
  ASSERT_EQ(either.parents, (std::vector<int>{net.find("lung"), net.find("tub")}));
  // Layout: first parent slowest. Row (lung=yes, tub=no) is row 1.
  EXPECT_EQ(either.cpt, (std::vector<double>{1.0, 0.0, 0.6, 0.4, 0.7, 0.3, 0.0, 1.0}));
  EXPECT_EQ(net.name, "unknown");
  EXPECT_EQ(net.display_name(), "inline");
}

TEST(bayes_bif, JavaBayesTableHasTheChildSlowest) {
  // From jb-dog-problem.bif: the first four numbers are P(dog_out = true | bp, fo) for
  // (bp, fo) = (true, true), (true, false), (false, true), (false, false).
  const Network net = parse_bif(
      "network \"Dog-Problem\" { //5 variables\r\n}\r\n"
      "variable \"bowel_problem\" { //2 values\r\n\ttype discrete[2] {  \"true\"  \"false\" };\r\n"
      "\tproperty \"position = (190, 69)\" ;\r\n}\r\n"
      "variable \"family_out\" {\r\n\ttype discrete[2] { \"true\" \"false\" };\r\n}\r\n"
      "variable \"dog_out\" {\r\n\ttype discrete[2] { \"true\" \"false\" };\r\n}\r\n"
      "probability ( \"bowel_problem\" ) { //1 variable(s) and 2 values\r\n\ttable 0.01 0.99 ;\r\n}\r\n"
      "probability ( \"family_out\" ) {\r\n\ttable 0.15 0.85 ;\r\n}\r\n"
      "probability (  \"dog_out\"  \"bowel_problem\"  \"family_out\" ) {\r\n"
      "\ttable 0.99 0.97 0.9 0.3 0.01 0.03 0.1 0.7 ;\r\n}\r\n",
      "dog.bif");
  EXPECT_EQ(net.name, "Dog-Problem");
  EXPECT_EQ(var(net, "dog_out").cpt, (std::vector<double>{0.99, 0.01, 0.97, 0.03, 0.9, 0.1, 0.3, 0.7}));
}

TEST(bayes_bif, DefaultRowsNumericStatesAndPgmpyProperties) {
  const Network net = parse_bif(R"(// variant of public ALARM files and pgmpy's writer
network "x" { property "software pgmpy" ; }
variable KINKED-TUBE {
   type discrete[2] {0, 1};
   property position = (335, 99) ;
   property weight = None ;
}
variable S { type discrete [3] { <5 5-12 12+ }; }
variable V /* inline comment */ { type discrete[2] {0 1}; }
probability (KINKED-TUBE) {
   default 0.04 0.96;
}
probability ( V ) { default 0.5 0.5 ; }
probability (S | KINKED-TUBE, V) {
   ( 0, 0 ) 0.98 0.01 0.01;
   (1,0) 0.01, 0.09, 0.9;
   default 0.2 0.3 0.5;

}
)",
                                "variants.bif");
  EXPECT_EQ(var(net, "KINKED-TUBE").cpt, (std::vector<double>{0.04, 0.96}));
  EXPECT_EQ(var(net, "S").states, (std::vector<std::string>{"<5", "5-12", "12+"}));
  // Rows (0,0), (0,1), (1,0), (1,1): listed ones as given, the rest from `default`.
  EXPECT_EQ(var(net, "S").cpt,
            (std::vector<double>{0.98, 0.01, 0.01, 0.2, 0.3, 0.5, 0.01, 0.09, 0.9, 0.2, 0.3, 0.5}));
}

TEST(bayes_bif, WholeTableDefaultIsATable) {
  // pgmpy reads a `default` holding the whole CPT like `table` (child slowest).
  const Network net = parse_bif(R"(network n {}
variable a { type discrete [2] { t, f }; }
variable b { type discrete [2] { t, f }; }
probability ( a ) { table 0.3 0.7; }
probability ( b | a ) { default 0.9 0.2 0.1 0.8; }
)",
                                "d.bif");
  EXPECT_EQ(var(net, "b").cpt, (std::vector<double>{0.9, 0.1, 0.2, 0.8}));
}

TEST(bayes_bif, RowsWithinToleranceAreNormalised) {
  const Network net = parse_bif(
      "network n {}\nvariable a { type discrete [2] { t, f }; }\nprobability ( a ) { table 0.50001 0.5; }\n",
      "n.bif");
  EXPECT_NEAR(var(net, "a").cpt[0], 0.50001 / 1.00001, 1e-15);
  EXPECT_NEAR(var(net, "a").cpt[0] + var(net, "a").cpt[1], 1.0, 1e-15);
}

TEST(bayes_bif, SharedCorpusLoads) {
  if (!have_bn()) GTEST_SKIP() << "no shared BIF corpus at " << bn_dir();
  const std::map<std::string, std::pair<std::size_t, std::size_t>> expected = {
      {"asia", {8, 8}},           {"jb-asia", {8, 8}},
      {"child", {20, 25}},        {"alarm", {37, 46}},
      {"jb-alarm", {37, 46}},     {"hailfinder", {56, 66}},
      {"hepar2", {70, 123}},      {"win95pts", {76, 112}},
      {"pathfinder", {109, 195}}, {"jb-hailfinder", {56, 66}},
      {"munin", {1041, 1397}},    {"link", {724, 1125}}};
  for (const auto& [name, counts] : expected) {
    const Network net = load_graph(bif(name));
    std::size_t arcs = 0;
    for (const auto& v : net.variables) arcs += v.parents.size();
    EXPECT_EQ(net.size(), counts.first) << name;
    EXPECT_EQ(arcs, counts.second) << name;
  }
  const Network child = load_graph(bif("child"));
  EXPECT_EQ(var(child, "LowerBodyO2").states, (std::vector<std::string>{"<5", "5-12", "12+"}));
  const Network jb = load_graph(bif("jb-asia"));
  EXPECT_EQ(jb.name, "Asia");
  EXPECT_GE(jb.find("VisitAsia"), 0);
}

struct MalformedBif {
  const char* name;
  const char* text;
  const char* message;  // the whole expected message
};

void PrintTo(const MalformedBif& m, std::ostream* os) {
  *os << m.name;
}

class bayes_bif_errors : public ::testing::TestWithParam<MalformedBif> {};

TEST_P(bayes_bif_errors, AreLocated) {
  const MalformedBif& m = GetParam();
  try {
    parse_bif(m.text, "bad.bif");
    FAIL() << "parsed without error";
  } catch (const GraphError& e) {
    EXPECT_EQ(std::string(e.what()), m.message);
  }
}

INSTANTIATE_TEST_SUITE_P(
    bayes, bayes_bif_errors,
    ::testing::Values(
        MalformedBif{"UnknownBlock", "network n {}\nvariabel a {}\n",
                     "bad.bif:2:1: expected 'network', 'variable' or 'probability', got 'variabel'"},
        MalformedBif{"StateCountMismatch", "variable a {\n  type discrete [3] { t, f };\n}\n",
                     "bad.bif:2:18: variable 'a' declares 3 states but lists 2"},
        MalformedBif{"NotDiscrete", "variable a {\n  type continuous;\n}\n",
                     "bad.bif:2:8: variable 'a': only 'discrete' variables are supported, got 'continuous'"},
        MalformedBif{
            "UndeclaredParent",
            "network n {}\nvariable a { type discrete [2] { t, f }; }\nprobability ( a | b ) { table "
            "0.5 0.5; }\n",
            "bad.bif:3:19: probability block names undeclared variable 'b'"},
        MalformedBif{
            "UnknownRowState",
            "network n {}\nvariable a { type discrete [2] { t, f }; }\nvariable b { type discrete [2] "
            "{ t, f }; }\n"
            "probability ( a ) { table 0.5 0.5; }\nprobability ( b | a ) {\n  (t) 0.5 0.5;\n  (x) 0.5 "
            "0.5;\n}\n",
            "bad.bif:7:4: 'x' is not a state of 'a' (states: t, f)"},
        MalformedBif{"RowSum",
                     "network n {}\nvariable a { type discrete [2] { t, f }; }\nprobability ( a ) {\n  table "
                     "0.6 0.6;\n}\n",
                     "bad.bif:4:3: variable 'a', CPT row (no parents): sums to 1.2 (|sum - 1| > 0.0001)"},
        MalformedBif{
            "NegativeEntry",
            "network n {}\nvariable a { type discrete [2] { t, f }; }\nprobability ( a ) { table -0.5 "
            "1.5; }\n",
            "bad.bif:3:21: variable 'a', CPT row (no parents): entry 1 is -0.5"},
        MalformedBif{
            "TableLength",
            "network n {}\nvariable a { type discrete [2] { t, f }; }\nprobability ( a ) { table 0.2 "
            "0.3 0.5; }\n",
            "bad.bif:3:21: table of 'a' has 3 probabilities, expected 2 (2 states x 1 parent "
            "configurations)"},
        MalformedBif{
            "MissingRow",
            "network n {}\nvariable a { type discrete [2] { t, f }; }\nvariable b { type discrete [2] "
            "{ t, f }; }\n"
            "probability ( a ) { table 0.5 0.5; }\nprobability ( b | a ) {\n  (t) 0.5 0.5;\n}\n",
            "bad.bif:5:1: probability block of 'b' has no row for (a=f) and no 'default'"},
        MalformedBif{"NoProbabilityBlock", "network n {}\nvariable a { type discrete [2] { t, f }; }\n",
                     "bad.bif:2:10: variable 'a' has no probability block"},
        MalformedBif{
            "NotANumber",
            "network n {}\nvariable a { type discrete [2] { t, f }; }\nprobability ( a ) { table 0.5 "
            "half; }\n",
            "bad.bif:3:31: expected a probability, got 'half'"},
        MalformedBif{
            "MissingSemicolon",
            "network n {}\nvariable a { type discrete [2] { t, f }; }\nprobability ( a ) { table 0.5 0.5 }\n",
            "bad.bif:3:35: expected a probability, got '}'"},
        MalformedBif{"UnterminatedComment", "network n {}\n/* never closed\nvariable a {}\n",
                     "bad.bif:2:1: unterminated /* comment"},
        MalformedBif{"UnterminatedString", "network \"n {}\n",
                     "bad.bif:1:9: unterminated quoted name (end of line inside quotes)"},
        MalformedBif{
            "DuplicateVariable",
            "network n {}\nvariable a { type discrete [2] { t, f }; }\nvariable a { type discrete [2] "
            "{ t, f }; }\n",
            "bad.bif:3:10: variable 'a' is declared twice (first at line 2)"},
        MalformedBif{
            "SecondBlock",
            "network n {}\nvariable a { type discrete [2] { t, f }; }\nprobability ( a ) { table 0.5 0.5; }\n"
            "probability ( a ) { table 0.5 0.5; }\n",
            "bad.bif:4:1: second probability block for 'a' (first at line 3)"},
        MalformedBif{
            "Cycle",
            "network n {}\nvariable a { type discrete [2] { t, f }; }\nvariable b { type discrete [2] "
            "{ t, f }; }\n"
            "probability ( a | b ) { (t) 0.5 0.5; (f) 0.5 0.5; }\nprobability ( b | a ) { (t) 0.5 0.5; "
            "(f) 0.5 0.5; }\n",
            "bad.bif: the graph has a directed cycle through a, b"},
        MalformedBif{
            "Truncated",
            "network n {}\nvariable a { type discrete [2] { t, f }; }\nprobability ( a ) { table 0.5 0.5",
            "bad.bif:3:34: expected ';' after the probabilities, got end of file"}),
    [](const ::testing::TestParamInfo<MalformedBif>& info) { return std::string(info.param.name); });

TEST(bayes_bif, MissingFileIsNamed) {
  try {
    load_graph("/nonexistent/graph.bif");
    FAIL();
  } catch (const GraphError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot read /nonexistent/graph.bif: No such file or directory"));
  }
}

}  // namespace
}  // namespace cann_debug::bayes
