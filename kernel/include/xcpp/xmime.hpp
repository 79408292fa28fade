#pragma once
// xeus-cling's rich-display API, as the tapegrad-xcpp kernel provides it.
//
// A type shows itself in a notebook through a free function in its own namespace,
// found by argument-dependent lookup:
//
//     nl::json mime_bundle_repr(const MyType& x);   // e.g. {"text/html": "<table>..."}
//
// xcpp::mime_bundle_repr below is the fallback for every other type: text/plain, in cling's
// format for standard containers and the like, else the value's operator<<, else its type name
// (detail::plain_text).

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <typeinfo>
#include <utility>

#include <nlohmann/json.hpp>

#include "xcpp/xprint_value.hpp"

namespace nl = nlohmann;

namespace xcpp {
namespace detail {

// The type of the cell's value as cling writes it, set while the kernel shows it ("" otherwise): `const`
// kept, and ` &` after a variable (an lvalue) of a class or array type: `(std::vector<int> &)`, `(int)`,
// `(const int)`, `(const char[6])` (a string literal).
inline std::string& showing_type() {
  static std::string type;
  return type;
}

template <class V>
std::string shown_type(bool lvalue) {
  using U = std::remove_cv_t<V>;
  const bool reference = lvalue && !std::is_arithmetic_v<U> && !std::is_pointer_v<U> && !std::is_enum_v<U> &&
                         !std::is_same_v<U, std::nullptr_t> && !std::is_same_v<std::remove_cv_t<std::remove_extent_t<U>>, char>;
  const bool is_const = std::is_const_v<V> || std::is_const_v<std::remove_extent_t<V>>;
  return (is_const ? "const " : "") + type_name<std::remove_cv_t<std::remove_extent_t<U>>>() +
         (std::is_array_v<U> ? "[" + std::to_string(std::extent_v<U>) + "]" : "") + (reference ? " &" : "");
}

// text/plain of a value: cling's `(type) value` for builtins, strings, containers, pair/tuple/optional,
// smart pointers, C arrays, pointers and enums (xcpp/xprint_value.hpp); else what its operator<< prints
// (xtensor arrays, a user's type with its own operator<<); else cling's `(type) @address`.
template <class T>
std::string plain_text(const T& value) {
  const std::string type = "(" + (showing_type().empty() ? type_name<T>() : showing_type()) + ")";
  if constexpr (cling_printed<T>) {
    return type + " " + value_text(value);
  } else if constexpr (has_ostream<T>::value) {
    std::ostringstream out;
    out << value;
    return out.str();
  } else {
    return type + " @" + address(&value);
  }
}

}  // namespace detail

template <class T>
nl::json mime_bundle_repr(const T& value) {
  nl::json bundle = nl::json::object();
  bundle["text/plain"] = detail::plain_text(value);
  return bundle;
}

}  // namespace xcpp
