#pragma once
// xeus-cling's rich-display API, as the tapegrad-xcpp kernel provides it.
//
// A type shows itself in a notebook through a free function in its own namespace,
// found by argument-dependent lookup:
//
//     nl::json mime_bundle_repr(const MyType& x);   // e.g. {"text/html": "<table>..."}
//
// xcpp::mime_bundle_repr below is the fallback for every other type: the value's
// operator<< as text/plain if it has one, else its type name.

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <typeinfo>
#include <utility>

#include <nlohmann/json.hpp>

namespace nl = nlohmann;

namespace xcpp {
namespace detail {

template <class T>
auto plain_text(const T& value, int) -> decltype(std::declval<std::ostream&>() << value, std::string()) {
  std::ostringstream out;
  out << value;
  return out.str();
}

template <class T>
std::string plain_text(const T&, long) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(typeid(T).name(), nullptr, nullptr, &status),
                                              std::free);
  return "(" + std::string(status == 0 && name ? name.get() : typeid(T).name()) + ")";
}

}  // namespace detail

template <class T>
nl::json mime_bundle_repr(const T& value) {
  nl::json bundle = nl::json::object();
  bundle["text/plain"] = detail::plain_text(value, 0);
  return bundle;
}

}  // namespace xcpp
