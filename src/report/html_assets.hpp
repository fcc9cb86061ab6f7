// The files report.html inlines, embedded into the library at build time (cmake/embed_files.cmake
// generates their definitions): d3 from the Debian package libjs-d3 and the report's own page,
// script and style sheet (src/report/html/), so that the page opens offline.
#pragma once

#include <string_view>

namespace wisp::html_assets {

std::string_view d3_js();          // /usr/share/javascript/d3/d3.min.js (d3 v3)
std::string_view report_js();      // src/report/html/report.js
std::string_view report_css();     // src/report/html/report.css
std::string_view template_html();  // src/report/html/template.html

}  // namespace wisp::html_assets
