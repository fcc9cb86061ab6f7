// ustar archives. See tar_archive.hpp.
#include "wisp/io/tar_archive.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "wisp/error.hpp"

namespace wisp {

namespace {

constexpr std::size_t kBlock = 512;

// `value` in octal, zero-padded to width - 1 digits and a NUL, at `field`.
void octal(char* field, std::size_t width, std::uint64_t value) {
  const std::string digits = fmt::format("{:0{}o}", value, width - 1);
  std::memcpy(field, digits.data(), width - 1);
  field[width - 1] = '\0';
}

std::array<char, kBlock> header(const TarMember& m) {
  if (m.name.empty() || m.name.size() > 100) throw Error(fmt::format("tar member name '{}': 1 to 100 bytes", m.name));
  std::array<char, kBlock> h{};
  std::memcpy(h.data(), m.name.data(), m.name.size());
  octal(h.data() + 100, 8, 0644);               // mode
  octal(h.data() + 108, 8, 0);                  // uid
  octal(h.data() + 116, 8, 0);                  // gid
  octal(h.data() + 124, 12, m.content.size());  // size
  octal(h.data() + 136, 12, 0);                 // mtime
  std::memset(h.data() + 148, ' ', 8);          // checksum, counted as spaces
  h[156] = '0';                                 // regular file
  std::memcpy(h.data() + 257,
              "ustar\0"
              "00",
              8);  // magic and version
  unsigned sum = 0;
  for (char c : h) sum += static_cast<unsigned char>(c);
  const std::string checksum = fmt::format("{:06o}", sum);
  std::memcpy(h.data() + 148, checksum.data(), 6);
  h[154] = '\0';
  h[155] = ' ';
  return h;
}

std::uint64_t parse_octal(const char* field, std::size_t width, const std::string& where) {
  std::uint64_t v = 0;
  std::size_t i = 0;
  while (i < width && field[i] == ' ') ++i;
  for (; i < width && field[i] >= '0' && field[i] <= '7'; ++i) v = v * 8 + static_cast<std::uint64_t>(field[i] - '0');
  if (i < width && field[i] != '\0' && field[i] != ' ') throw Error(where + ": not a tar archive (bad number field)");
  return v;
}

}  // namespace

void write_tar(std::ostream& out, const std::vector<TarMember>& members) {
  static const std::array<char, kBlock> zeros{};
  for (const TarMember& m : members) {
    const auto h = header(m);
    out.write(h.data(), kBlock);
    out.write(m.content.data(), static_cast<std::streamsize>(m.content.size()));
    out.write(zeros.data(), static_cast<std::streamsize>((kBlock - m.content.size() % kBlock) % kBlock));
  }
  out.write(zeros.data(), kBlock);
  out.write(zeros.data(), kBlock);
}

std::vector<TarMember> read_tar(const std::string& bytes, const std::string& where) {
  std::vector<TarMember> out;
  std::size_t at = 0;
  while (at + kBlock <= bytes.size()) {
    const char* h = bytes.data() + at;
    if (std::all_of(h, h + kBlock, [](char c) { return c == '\0'; })) return out;
    unsigned sum = 0;
    for (std::size_t i = 0; i < kBlock; ++i) sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(h[i]);
    if (parse_octal(h + 148, 8, where) != sum) throw Error(where + ": not a tar archive (header checksum)");
    const std::uint64_t size = parse_octal(h + 124, 12, where);
    if (size > bytes.size() - at - kBlock) throw Error(where + ": truncated tar archive");
    out.push_back({std::string(h, strnlen(h, 100)), bytes.substr(at + kBlock, size)});
    at += kBlock + (size + kBlock - 1) / kBlock * kBlock;
  }
  throw Error(where + ": truncated tar archive (no end blocks)");
}

}  // namespace wisp
