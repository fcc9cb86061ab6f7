// Plain values in and out of the byte buffers a process group exchanges (trivially copyable types,
// vectors of them and strings); a short buffer is an Error, never a read past its end.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "wisp/error.hpp"

namespace wisp {

class Packer {
 public:
  template <typename T>
  Packer& put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    text_.append(reinterpret_cast<const char*>(&value), sizeof(T));
    return *this;
  }
  template <typename T>
  Packer& put_vector(const std::vector<T>& values) {
    static_assert(std::is_trivially_copyable_v<T>);
    put<std::uint64_t>(values.size());
    text_.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
    return *this;
  }
  Packer& put_string(std::string_view s) {
    put<std::uint64_t>(s.size());
    text_.append(s);
    return *this;
  }
  std::size_t size() const { return text_.size(); }  // bytes put so far
  std::string take() { return std::move(text_); }

 private:
  std::string text_;
};

// One plain value as a buffer.
template <typename T>
std::string packed(const T& value) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::string text(sizeof(T), '\0');
  std::memcpy(text.data(), &value, sizeof(T));
  return text;
}

class Unpacker {
 public:
  explicit Unpacker(std::string_view text) : text_(text) {}
  template <typename T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    T value;
    std::memcpy(&value, take(sizeof(T)), sizeof(T));
    return value;
  }
  template <typename T>
  std::vector<T> get_vector() {
    const auto n = get<std::uint64_t>();
    if (n > (text_.size() - at_) / (sizeof(T) ? sizeof(T) : 1)) throw Error("process exchange: a truncated message");
    std::vector<T> values(n);
    std::memcpy(values.data(), take(n * sizeof(T)), n * sizeof(T));
    return values;
  }
  std::string get_string() {
    const auto n = get<std::uint64_t>();
    return std::string(take(n), n);
  }
  bool done() const { return at_ == text_.size(); }

 private:
  const char* take(std::size_t n) {
    if (n > text_.size() - at_) throw Error("process exchange: a truncated message");
    const char* p = text_.data() + at_;
    at_ += n;
    return p;
  }
  std::string_view text_;
  std::size_t at_ = 0;
};

}  // namespace wisp
