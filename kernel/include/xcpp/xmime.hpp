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

// Set while the kernel shows a cell's value that is an lvalue (a variable): cling then writes the type
// as `(std::vector<int> &)`.
inline bool& showing_lvalue() {
  static bool lvalue = false;
  return lvalue;
}

// text/plain of a value: cling's format for containers, pair/tuple/optional, smart pointers, C arrays,
// pointers and enums (xcpp/xprint_value.hpp); else what its operator<< prints (numbers, strings, xtensor
// arrays, a user's type with its own operator<<); else its type.
template <class T>
std::string plain_text(const T& value) {
  // (cling writes a pointer variable's type without the `&`)
  const std::string type = "(" + type_name<T>() + (showing_lvalue() && !std::is_pointer_v<T> ? " &" : "") + ")";
  if constexpr (cling_printed<T>) {
    return type + " " + value_text(value);
  } else if constexpr (has_ostream<T>::value) {
    std::ostringstream out;
    out << value;
    return out.str();
  } else {
    return type;
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
