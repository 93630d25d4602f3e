#include <catch2/catch.hpp>

#include "tfm/machinery/command_line.hpp"
#include "tfm/support/parse_number.hpp"

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

TEST_CASE("command line: a number too small for its type is a number, rounded towards 0",
          "[cli][bad-input]") {
  // Python and NumPy read 1e-400 as 0.0 and 1e-45 as float32's smallest subnormal; this said
  // "not a number" before.
  CHECK(tfm::parse_number<double>("1e-400") == 0.0);
  CHECK(tfm::parse_number<float>("1e-45"));         // a subnormal, or 0 where they are flushed
  CHECK_FALSE(tfm::parse_number<double>("1e400"));  // too large is still refused
  CHECK_FALSE(tfm::parse_number<float>("1e39"));
  CHECK_FALSE(tfm::parse_number<double>("1e-400x"));
  CHECK_FALSE(tfm::parse_number<double>(""));
  // --set learning_rate=1e-45 is a float only as a subnormal, which the library flushes to zero
  // (engine/machine.hpp): refused as such, not as the "0.000000" it would become.
  auto cli = make();
  const char* tiny_rate[] = {"prog", "--set", "learning_rate=1e-45"};
  REQUIRE(cli.parse(3, tiny_rate));
  CHECK_THROWS_WITH(tfm::config_from_command_line(cli),
                    Catch::Contains("1e-45 is too close to 0 for a float"));
  // --help=yes is not "unknown option '--help'".
  auto help = make();
  const char* help_value[] = {"prog", "--help=yes"};
  CHECK_THROWS_WITH(help.parse(2, help_value), "option '--help' takes no value");
  // A bad --set is a usage error (exit code 2).
  auto set = make();
  const char* bad_set[] = {"prog", "--set", "d_model=eight"};
  REQUIRE(set.parse(3, bad_set));
  CHECK_THROWS_AS(tfm::config_from_command_line(set), tfm::UsageError);
}
