#include <catch2/catch.hpp>

#include "tfm/io/command_line.hpp"

namespace {
tfm::CommandLine make() {
  tfm::CommandLine cli("prog", "test program");
  cli.option("--preset", "NAME", "preset", "tiny")
      .repeated("--set", "K=V", "override")
      .flag("--quiet", "q");
  return cli;
}
}  // namespace

TEST_CASE("command line: values, repeats, flags and defaults", "[cli]") {
  auto cli = make();
  const char* argv[] = {"prog", "--preset", "vowels", "--set", "a=1", "--set=b=2", "--quiet"};
  REQUIRE(cli.parse(7, argv));
  CHECK(cli.value("--preset") == "vowels");
  CHECK(cli.values("--set") == std::vector<std::string>{"a=1", "b=2"});
  CHECK(cli.flag_set("--quiet"));
  CHECK(cli.given("--preset"));

  auto defaults = make();
  const char* none[] = {"prog"};
  REQUIRE(defaults.parse(1, none));
  CHECK(defaults.value("--preset") == "tiny");
  CHECK_FALSE(defaults.given("--preset"));
}

TEST_CASE("command line: bad input names the option", "[cli]") {
  auto cli = make();
  const char* unknown[] = {"prog", "--colour", "red"};
  CHECK_THROWS_WITH(cli.parse(3, unknown), Catch::Contains("unknown option '--colour'"));
  auto cli2 = make();
  const char* missing[] = {"prog", "--preset"};
  CHECK_THROWS_WITH(cli2.parse(2, missing), Catch::Contains("'--preset' needs a value"));
  auto cli3 = make();
  const char* number[] = {"prog", "--preset", "x1"};
  REQUIRE(cli3.parse(3, number));
  CHECK_THROWS_WITH(cli3.integer("--preset"), Catch::Contains("'--preset' needs a whole number"));
}
