// The documentation: every relative link of the Markdown docs points to something that exists,
// every link to a section names a heading of the target, the top-level README stays a front door,
// every layer folder carries its reference README (the design note: "Each layer folder carries a
// README.md"), and the files the C++ comments name exist.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kRoot = fs::path(WISP_SOURCE_DIR);

// Every *.md file of the repository, without build directories and hidden ones (.git, ...).
std::vector<fs::path> markdown_files() {
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(kRoot); it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() && (name.rfind("build", 0) == 0 || name.rfind('.', 0) == 0)) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && it->path().extension() == ".md") files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The text of a Markdown file with fenced code blocks and inline code spans (which may continue on
// the next line of their paragraph) blanked; line breaks are kept, so offsets give line numbers.
std::string prose_of(const std::string& text) {
  std::string prose;
  std::istringstream in(text);
  std::string line;
  bool fence = false, code = false;
  while (std::getline(in, line)) {
    const bool fence_line = line.rfind("```", 0) == 0;
    if (fence_line) fence = !fence;
    if (fence || fence_line || line.find_first_not_of(" \t") == std::string::npos) {
      code = false;  // a code span ends with its paragraph
      prose += '\n';
      continue;
    }
    for (char c : line) {
      if (c == '`') code = !code;
      prose += (code || c == '`') ? ' ' : c;
    }
    prose += '\n';
  }
  return prose;
}

struct Link {
  long line;
  std::string target;
};

// Links [text](target) and [text](target "title"); the text may continue on the next line.
std::vector<Link> links_of(const std::string& text) {
  static const std::regex link(R"(\[[^\]]*\]\(([^)\s]+)(\s+"[^"]*")?\))");
  const std::string prose = prose_of(text);
  std::vector<Link> links;
  for (std::sregex_iterator m(prose.begin(), prose.end(), link), end; m != end; ++m)
    links.push_back({1 + std::count(prose.begin(), prose.begin() + m->position(0), '\n'), (*m)[1].str()});
  return links;
}

bool is_external(const std::string& target) {
  for (const char* scheme : {"http://", "https://", "mailto:"})
    if (target.rfind(scheme, 0) == 0) return true;
  return false;
}

// GitHub's anchor of a heading: lower case, spaces to '-', punctuation dropped (ASCII punctuation
// except '-' and '_'; the Latin-1 symbols U+0080-U+00BF such as '§', '×', and the punctuation,
// arrows and symbols U+2000-U+2FFF).
std::string anchor_of(const std::string& heading) {
  std::string a;
  for (size_t i = 0; i < heading.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(heading[i]);
    if (c == 0xE2 && i + 2 < heading.size()) {
      i += 2;
    } else if (i + 1 < heading.size() &&
               (c == 0xC2 || (c == 0xC3 && static_cast<unsigned char>(heading[i + 1]) == 0x97))) {
      i += 1;
    } else if (c >= 0x80 || std::isalnum(c) || c == '-' || c == '_') {
      a += static_cast<char>(c >= 0x80 ? c : std::tolower(c));
    } else if (c == ' ') {
      a += '-';
    }
  }
  return a;
}

std::set<std::string> anchors_of(const fs::path& markdown) {
  std::set<std::string> anchors;
  std::istringstream in(read_file(markdown));
  std::string line;
  bool fence = false;
  static const std::regex heading(R"(^#{1,6} +(.*?) *$)");
  while (std::getline(in, line)) {
    if (line.rfind("```", 0) == 0) fence = !fence;
    std::smatch m;
    if (!fence && std::regex_match(line, m, heading)) anchors.insert(anchor_of(m[1].str()));
  }
  return anchors;
}

// The target relative to the repository's root (lexically), e.g. "src/README.md".
std::string relative_to_root(const fs::path& target) {
  return target.lexically_normal().lexically_relative(kRoot.lexically_normal()).generic_string();
}

}  // namespace

TEST_CASE("every relative link in the Markdown docs points to a file that exists", "[docs]") {
  const auto files = markdown_files();
  REQUIRE(files.size() >= 10);
  int checked = 0;
  for (const auto& md : files) {
    for (const auto& link : links_of(read_file(md))) {
      if (is_external(link.target) || link.target[0] == '#') continue;
      const std::string path = link.target.substr(0, link.target.find('#'));
      const fs::path target = (md.parent_path() / path).lexically_normal();
      const std::string in_repo = relative_to_root(target);
      INFO(relative_to_root(md) << ":" << link.line << ": link to " << link.target);
      CHECK(in_repo.rfind("..", 0) != 0);  // nothing outside the repository: a clone has only it
      CHECK(fs::exists(target));
      ++checked;
    }
  }
  CHECK(checked >= 50);
}

TEST_CASE("every link to a section of a Markdown file names one of its headings", "[docs]") {
  for (const auto& md : markdown_files()) {
    for (const auto& link : links_of(read_file(md))) {
      const auto hash = link.target.find('#');
      if (is_external(link.target) || hash == std::string::npos) continue;
      const std::string path = link.target.substr(0, hash);
      const fs::path target = path.empty() ? md : (md.parent_path() / path).lexically_normal();
      if (relative_to_root(target).rfind("..", 0) == 0 || target.extension() != ".md" || !fs::exists(target)) continue;
      INFO(relative_to_root(md) << ":" << link.line << ": link to " << link.target);
      CHECK(anchors_of(target).count(link.target.substr(hash + 1)) == 1);
    }
  }
}

TEST_CASE("the top-level README is a front door of at most 260 lines", "[docs]") {
  const std::string readme = read_file(kRoot / "README.md");
  const auto lines = std::count(readme.begin(), readme.end(), '\n');
  INFO("README.md has " << lines << " lines");
  CHECK(lines <= 260);
  // The two commands it starts with.
  CHECK(readme.rfind("```sh\nbash scripts/setup.sh demo", 0) == 0);
  CHECK(readme.find("bash scripts/setup.sh test") != std::string::npos);
}

TEST_CASE("every layer folder has a README with its reference", "[docs]") {
  for (const char* layer :
       {"group", "trace", "process", "io", "generate", "analysis", "replay", "scenario", "report", "driver", "cli"}) {
    INFO("src/" << layer << "/README.md");
    CHECK(fs::is_regular_file(kRoot / "src" / layer / "README.md"));
  }
}

namespace {

// Every C++ source and header of the tree's code (include, src, tests, examples).
std::vector<fs::path> code_files() {
  std::vector<fs::path> files;
  for (const char* top : {"include", "src", "tests", "examples"})
    for (const auto& entry : fs::recursive_directory_iterator(kRoot / top))
      if (entry.is_regular_file() && (entry.path().extension() == ".hpp" || entry.path().extension() == ".cpp"))
        files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

// A placeholder such as NAME.txt or SCENARIO.yaml: a component in capitals.
bool is_placeholder(const std::string& path) {
  static const std::regex capitals(R"((^|/)[A-Z][A-Z_]+[./])");
  return std::regex_search(path, capitals);
}

}  // namespace

// What a comment names must be there: a path under one of the repository's folders (src/, tests/,
// a layer's folder as include/wisp/ or src/ hold it, or beside the file) and a Markdown file by
// name. Other tools' files (Scalasca's MpiDelayOps.cpp, ../shared/...) are not paths of this tree.
TEST_CASE("every file a C++ comment names exists", "[docs]") {
  std::set<std::string> folders, names;
  for (const fs::path& base : {kRoot, kRoot / "include/wisp", kRoot / "src"})
    for (const auto& entry : fs::directory_iterator(base))
      if (entry.is_directory()) folders.insert(entry.path().filename().string());
  for (const fs::path& md : markdown_files()) names.insert(md.filename().string());
  static const std::regex reference(
      R"((^|[^\w/.-])([\w.-]+(/[\w.-]+)*\.(hpp|cpp|md|yaml|xml|cmake|sh|py|tesh|txt|json))\b)");
  std::size_t checked = 0;
  for (const fs::path& file : code_files()) {
    std::istringstream in(read_file(file));
    std::string line;
    for (long n = 1; std::getline(in, line); ++n) {
      const std::size_t comment = line.find("//");
      if (comment == std::string::npos) continue;
      const std::string text = line.substr(comment);
      for (std::sregex_iterator m(text.begin(), text.end(), reference), end; m != end; ++m) {
        const std::string path = (*m)[2].str();
        const std::size_t slash = path.find('/');
        bool exists = false;
        if (slash != std::string::npos) {
          if (!folders.count(path.substr(0, slash)) || is_placeholder(path)) continue;
          for (const fs::path& base :
               {kRoot, kRoot / "include/wisp", kRoot / "src", kRoot / "include", file.parent_path()})
            exists = exists || fs::exists(base / path);
        } else if (path.size() > 3 && path.compare(path.size() - 3, 3, ".md") == 0) {
          exists = names.count(path) > 0;
        } else {
          continue;
        }
        ++checked;
        INFO(fs::relative(file, kRoot).string() << ":" << n << " names " << path);
        CHECK(exists);
      }
    }
  }
  CHECK(checked >= 50);  // the check reads the comments at all
}
