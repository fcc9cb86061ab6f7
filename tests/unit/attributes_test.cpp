// Event attributes kept: read from Score-P and CASITA archives as otf2-print lists them, carried with
// their records through the replay and the scenario transforms, and written back so that otf2-print
// prints the same attribute lists on the same records of the simulated trace as of the measured one.
#include <catch2/catch.hpp>

#include <otf2/otf2.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <regex>
#include <string>

#include "helpers.hpp"
#include "tiny_trace.hpp"
#include "wisp/io/otf2_reader.hpp"
#include "wisp/io/otf2_writer.hpp"
#include "wisp/scenario/transform.hpp"

using namespace wisp;

namespace {

// otf2-print's records that carry attributes, counted by "KIND location fields | ATTRIBUTES ..."
// (the timestamp left out, string and definition ids of the fields too: the writer renumbers them).
std::map<std::string, int> printed_attributes(const std::filesystem::path& anchor) {
  const auto lines = test::otf2_print_lines(anchor);
  REQUIRE(lines);
  std::map<std::string, int> out;
  std::string previous;
  const std::regex record(R"(^(\S+)\s+(\d+)\s+\d+\s*(.*)$)");
  const std::regex ids(R"( <\d+>)");
  for (const std::string& line : *lines) {
    std::smatch m;
    if (const auto at = line.find("ADDITIONAL ATTRIBUTES:"); at != std::string::npos)
      ++out[previous + " | " + line.substr(at)];
    else if (std::regex_match(line, m, record))
      previous = m[1].str() + " " + m[2].str() + " " + std::regex_replace(m[3].str(), ids, "");
  }
  return out;
}

std::uint64_t attributed_records(const Trace& t) {
  std::uint64_t n = 0;
  for (const RankTrace& rt : t.ranks)
    for (const LocationAttributes& l : rt.attributes) n += l.records.size();
  return n;
}

}  // namespace

TEST_CASE("attributes: CASITA's CUDA launches keep the stream they target", "[otf2][attributes][real]") {
  const Trace t = read_otf2(test::real_trace("other-writers/casita-2_jacobi_blame_cpu_015"));
  // otf2-print -G: three attributes; otf2-print: 2000 cuLaunchKernel enters per rank carry
  // CUDA_STREAM_REF, rank 0's "CUDA[0:2]" <17179869184>, rank 1's <17179869185>.
  REQUIRE(t.defs.attributes.size() == 3);
  CHECK(t.defs.attributes[0].name == "CUDA_STREAM_REF");
  CHECK(t.defs.attributes[0].type == OTF2_TYPE_LOCATION);
  CHECK(t.defs.attributes[2].description == "CUDA driver API function result");
  CHECK(t.skipped_records.empty());
  const std::uint64_t stream[] = {17179869184ull, 17179869185ull};
  for (Rank r = 0; r < 2; ++r) {
    REQUIRE(t.ranks[r].attributes.size() >= 1);
    const LocationAttributes& master = t.ranks[r].attributes[0];
    REQUIRE(master.records.size() == 2000);
    for (const AttributedRecord& a : master.records) {
      REQUIRE(a.table == AttributedTable::Event);
      const Event& e = t.ranks[r].events[a.record];
      REQUIRE(e.kind == EventKind::Enter);
      CHECK(t.defs.region_of(e.ref).name == "cuLaunchKernel");
      REQUIRE(a.count == 1);
      CHECK(master.values[a.first].attribute == 0);
      CHECK(master.values[a.first].value == stream[r]);
    }
  }
}

TEST_CASE("attributes: the simulated trace carries every attribute list of the measured one",
          "[otf2][attributes][real]") {
  for (const char* name : {"other-writers/casita-2_jacobi_blame_cpu_015", "other-writers/casita-2_cuda_simple",
                           "scorep-ping-pong", "whatif/minife2/imb0_A"}) {
    CAPTURE(name);
    const auto dir = test::real_trace(name);
    test::TempDir out;
    const test::WrittenIdentity w = test::written_identity(dir, out);
    CHECK(w.after == w.before);
    const auto measured = printed_attributes(test::real_trace(name) / "traces.otf2");
    REQUIRE(!measured.empty());
    CHECK(printed_attributes(out / "id" / "traces.otf2") == measured);
    CHECK(test::run_wisp("info '" + dir.string() + "'").out.find("skipped       none") != std::string::npos);
  }
}

TEST_CASE("attributes: Score-P's process ids and program arguments are kept", "[otf2][attributes][real]") {
  const Trace t = read_otf2(test::real_trace("whatif/minife2/imb0_A"));
  // otf2-print: PROGRAM_BEGIN ... 2 Arguments: "nx=100", "load_imbalance=0",
  // ADDITIONAL ATTRIBUTES: ("ProcessId" <2>; UINT64; 5747) on location 0, 5748 on location 1.
  CHECK(t.defs.program_arguments == std::vector<std::string>{"nx=100", "load_imbalance=0"});
  REQUIRE(t.defs.attributes.size() == 4);
  CHECK(t.defs.attributes[2].name == "ProcessId");
  for (Rank r = 0; r < 2; ++r) {
    const LocationAttributes& master = t.ranks[r].attributes.at(0);
    REQUIRE(master.records.size() == 1);
    CHECK(t.ranks[r].events[master.records[0].record].kind == EventKind::ProgramBegin);
    CHECK(master.values[0].value == 5747 + r);
  }
}

TEST_CASE("attributes: a scenario's trace keeps every list on its record", "[attributes][real]") {
  const auto dir = test::real_trace("other-writers/casita-2_cuda_simple");
  const Trace measured = read_otf2(dir);
  Transform half;
  half.kind = TransformKind::Scale;
  half.select.region = "main";
  half.factor = 0.5;
  const Trace scaled = apply_transforms(measured, {half}).trace;
  REQUIRE(scaled.end_time() < measured.end_time());
  test::TempDir out;
  write_otf2(scaled, out / "s");
  CHECK(printed_attributes(out / "s" / "traces.otf2") == printed_attributes(dir / "traces.otf2"));
}

TEST_CASE("attributes: every value type wisp keeps is written and read back; others are counted", "[attributes]") {
  test::TinyTrace tiny(2);
  tiny.work(0, "compute", 1, 5);
  tiny.work(1, "compute", 1, 5);
  Trace t = tiny.finish(6e-6);
  const RegionId compute = *t.defs.find_region("compute");
  const auto add = [&](std::string name, OTF2_Type type) {
    t.defs.attributes.push_back({std::move(name), "", static_cast<std::uint8_t>(type)});
    return static_cast<std::uint32_t>(t.defs.attributes.size() - 1);
  };
  double half = 0.5, third = 1.0 / 3;
  std::uint64_t half_bits = 0, third_bits = 0;
  std::memcpy(&half_bits, &half, 8), std::memcpy(&third_bits, &third, 8);
  t.defs.attribute_strings = {"hello"};
  LocationAttributes a;
  a.values = {{200, add("u8", OTF2_TYPE_UINT8), OTF2_TYPE_UINT8},
              {static_cast<std::uint64_t>(-5), add("i16", OTF2_TYPE_INT16), OTF2_TYPE_INT16},
              {static_cast<std::uint64_t>(-7000000000ll), add("i64", OTF2_TYPE_INT64), OTF2_TYPE_INT64},
              {half_bits, add("f", OTF2_TYPE_FLOAT), OTF2_TYPE_FLOAT},
              {third_bits, add("d", OTF2_TYPE_DOUBLE), OTF2_TYPE_DOUBLE},
              {0, add("s", OTF2_TYPE_STRING), OTF2_TYPE_STRING},
              {compute, add("r", OTF2_TYPE_REGION), OTF2_TYPE_REGION},
              {t.defs.world, add("c", OTF2_TYPE_COMM), OTF2_TYPE_COMM},
              {t.defs.ranks[1].otf2_id, add("l", OTF2_TYPE_LOCATION), OTF2_TYPE_LOCATION}};
  a.records = {{1, 0, 9, AttributedTable::Event}};
  t.ranks[0].attributes = {a};
  LocationAttributes group;  // a kind wisp does not keep: written raw, counted when read
  group.values = {{0, add("g", OTF2_TYPE_GROUP), OTF2_TYPE_GROUP}};
  group.records = {{2, 0, 1, AttributedTable::Event}};
  t.ranks[1].attributes = {group};
  test::TempDir out;
  write_otf2(t, out / "t");
  const Trace back = read_otf2(out / "t");
  REQUIRE(back.defs.attributes.size() == t.defs.attributes.size());
  REQUIRE(back.ranks[0].attributes.size() == 1);
  const LocationAttributes& b = back.ranks[0].attributes[0];
  REQUIRE(b.records.size() == 1);
  CHECK(b.records[0].record == 1);
  REQUIRE(b.values.size() == a.values.size());
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    CAPTURE(i);
    CHECK(b.values[i].type == a.values[i].type);
    CHECK(b.values[i].attribute == a.values[i].attribute);
    if (a.values[i].type != OTF2_TYPE_STRING) CHECK(b.values[i].value == a.values[i].value);
  }
  CHECK(back.defs.attribute_strings.at(b.values[5].value) == "hello");
  CHECK(back.ranks[1].attributes.empty());
  CHECK(back.skipped_records.at("attribute value of a kind wisp does not keep") == 1);
  CHECK(attributed_records(back) == 1);
  // otf2-print decodes them as written: the FLOAT 0.5, the string, the region by name.
  const auto printed = printed_attributes(out / "t" / "traces.otf2");
  REQUIRE(printed.size() == 2);
  const std::string first = printed.begin()->first;
  CAPTURE(first);
  CHECK(first.find("\"u8\" <0>; UINT8; 200") != std::string::npos);
  CHECK(first.find("\"i16\" <1>; INT16; -5") != std::string::npos);
  CHECK(first.find("\"s\" <5>; STRING; \"hello\"") != std::string::npos);
  CHECK(first.find("\"r\" <6>; REGION; \"compute\"") != std::string::npos);
}
