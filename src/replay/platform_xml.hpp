// The elements of a SimGrid platform file as a real XML parser (pugixml) reads them, each with
// its line: comments, CDATA and entities are XML's, not a pattern's. Read by load_platform()
// (wisp:* <prop>s) and check_platform_xml() (attributes SimGrid would abort on).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace wisp::replay_impl {

struct XmlElement {
  std::string tag;
  std::vector<std::pair<std::string, std::string>> attributes;  // entities already replaced
  std::size_t line = 0;
  std::optional<std::string> attribute(const std::string& name) const;
};

// Every element in document order. Throws wisp::Error("platform FILE line N: ...") for XML that
// is not well-formed and for a root element other than <platform>.
std::vector<XmlElement> platform_elements(const std::string& text, const std::filesystem::path& file);

}  // namespace wisp::replay_impl
