// Platform files through pugixml. See platform_xml.hpp.
#include "platform_xml.hpp"

#include <fmt/format.h>
#include <pugixml.hpp>

#include <algorithm>

#include "wisp/error.hpp"

namespace wisp::replay_impl {

namespace {

std::size_t line_of(const std::string& text, std::ptrdiff_t offset) {
  const auto end = text.begin() + std::clamp<std::ptrdiff_t>(offset, 0, static_cast<std::ptrdiff_t>(text.size()));
  return 1 + static_cast<std::size_t>(std::count(text.begin(), end, '\n'));
}

void collect(const pugi::xml_node& node, const std::string& text, std::vector<XmlElement>& out) {
  for (const pugi::xml_node& child : node.children()) {
    if (child.type() != pugi::node_element) continue;
    XmlElement e{child.name(), {}, line_of(text, child.offset_debug())};
    for (const pugi::xml_attribute& a : child.attributes()) e.attributes.emplace_back(a.name(), a.value());
    out.push_back(std::move(e));
    collect(child, text, out);
  }
}

}  // namespace

std::optional<std::string> XmlElement::attribute(const std::string& name) const {
  for (const auto& [key, value] : attributes)
    if (key == name) return value;
  return std::nullopt;
}

std::vector<XmlElement> platform_elements(const std::string& text, const std::filesystem::path& file) {
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_buffer(text.data(), text.size());
  if (parsed.status == pugi::status_no_document_element)
    throw Error(fmt::format("platform {}: not a SimGrid platform (no <platform> element)", file.string()));
  if (!parsed)
    throw Error(fmt::format("platform {} line {}: not well-formed XML: {}", file.string(), line_of(text, parsed.offset),
                            parsed.description()));
  const pugi::xml_node root = doc.document_element();
  if (std::string_view(root.name()) != "platform")
    throw Error(fmt::format("platform {}: not a SimGrid platform (no <platform> element)", file.string()));
  std::vector<XmlElement> out;
  collect(doc, text, out);
  return out;
}

}  // namespace wisp::replay_impl
