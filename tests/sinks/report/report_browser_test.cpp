// A real browser check of report.html: a headless Chromium loads the page and must run its script to the
// end (the script marks <body data-ready="yes">) without any console error, CSP violation or network
// request. Skips when no Chromium is installed (Debian: `apt-get install chromium-headless-shell`, or
// `chromium`); CANN_DEBUG_BROWSER may name the browser binary.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cann_debug/testing.hpp"
#include "report.hpp"
#include "report_test_inputs.hpp"

namespace cann_debug::report {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

std::string find_browser() {
  if (const char* env = std::getenv("CANN_DEBUG_BROWSER"); env && *env) return env;
  const char* path = std::getenv("PATH");
  if (!path) return {};
  const std::string dirs = path;
  for (const char* name : {"chromium-headless-shell", "chromium", "chromium-browser", "google-chrome"}) {
    std::size_t begin = 0;
    while (begin <= dirs.size()) {
      const std::size_t end = std::min(dirs.find(':', begin), dirs.size());
      const fs::path candidate = fs::path(dirs.substr(begin, end - begin)) / name;
      std::error_code ec;
      if (!candidate.parent_path().empty() && fs::is_regular_file(candidate, ec)) return candidate.string();
      begin = end + 1;
    }
  }
  return {};
}

/// Runs `command` through the shell; returns its exit status and fills `output` with stdout + stderr.
int run(const std::string& command, std::string& output) {
  std::FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return -1;
  std::array<char, 4096> buffer{};
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) output.append(buffer.data(), n);
  return ::pclose(pipe);
}

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// Loads `page` in the headless browser; returns the exit status, with the DOM and the console in `output`.
int render(const std::string& browser, const fs::path& page, std::string& output) {
  return run("timeout 60 " + quoted(browser) +
                 " --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions"
                 " --user-data-dir=" +
                 quoted((page.parent_path() / "profile").string()) +
                 " --enable-logging=stderr --v=0 --virtual-time-budget=2000 --dump-dom " +
                 quoted("file://" + page.string()),
             output);
}

void expect_page_loads(const std::vector<std::pair<std::size_t, Envelope>>& inputs, const std::string& name) {
  const std::string browser = find_browser();
  if (browser.empty()) GTEST_SKIP() << "no headless Chromium installed (chromium-headless-shell or chromium)";
  const fs::path out = testdata::fresh_folder("browser_" + name);
  {
    testing::Harness h(plugins::report_factory(), {{"output", out.string()}, {"formats", {"html"}}});
    h.run_processor(inputs);
  }
  std::string output;
  ASSERT_EQ(render(browser, out / "report.html", output), 0) << output;
  EXPECT_THAT(output, HasSubstr("data-ready=\"yes\"")) << "the page's script did not finish:\n" << output;
  EXPECT_THAT(output, HasSubstr("<polyline class=\"curve\""));
  EXPECT_THAT(output, Not(HasSubstr("Uncaught"))) << output;
  EXPECT_THAT(output, Not(HasSubstr("Content Security Policy"))) << output;
  // Hostile names stay text: the DOM holds the report's one script element and no injected image.
  std::size_t scripts = 0;
  for (auto at = output.find("<script"); at != std::string::npos; at = output.find("<script", at + 1))
    ++scripts;
  EXPECT_EQ(scripts, 1u) << output;
  EXPECT_THAT(output, Not(HasSubstr("<img"))) << output;
}

// The check itself: a page with a script error and a remote image is caught (console error, CSP refusal).
TEST(ReportInBrowser, TheCheckSeesScriptErrorsAndBlockedLoads) {
  const std::string browser = find_browser();
  if (browser.empty()) GTEST_SKIP() << "no headless Chromium installed (chromium-headless-shell or chromium)";
  const fs::path out = testdata::fresh_folder("browser_broken");
  std::ofstream(out / "broken.html")
      << "<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
         "'none'; "
         "script-src 'unsafe-inline'\"></head><body><script>undefinedName.call();</script>"
         "<img src=\"http://192.0.2.1/x.png\"></body></html>";
  std::string output;
  ASSERT_EQ(render(browser, out / "broken.html", output), 0) << output;
  EXPECT_THAT(output, HasSubstr("Uncaught"));
  EXPECT_THAT(output, HasSubstr("Content Security Policy"));
}

TEST(ReportInBrowser, TrainingReportLoadsWithoutScriptErrors) {
  expect_page_loads(testdata::training_inputs(), "training");
}

TEST(ReportInBrowser, InferenceReportLoadsWithoutScriptErrors) {
  expect_page_loads(testdata::inference_inputs(), "inference");
}

}  // namespace
}  // namespace cann_debug::report
