#pragma once
// xcpp::display(x) shows x in the notebook (a display_data message), with the
// mime bundle of x: its own mime_bundle_repr found by ADL, else xcpp's fallback
// (xcpp/xmime.hpp). Same API as xeus-cling's <xcpp/xdisplay.hpp>.
//
// How it reaches the kernel: the tapegrad-xcpp kernel defines the function pointer
// tapegrad_xcpp_publish when it starts (no symbols need exporting from the kernel).

#include <string>
#include <type_traits>

#include "xcpp/xmime.hpp"

// kind: "display_data", "update_display_data", "execute_result" or "clear_output";
// json: {"data": bundle, "metadata": {...}, "transient": {...}} as text.
extern void (*tapegrad_xcpp_publish)(const char* kind, const char* json);

namespace xcpp {
namespace detail {

inline void publish(const char* kind, const nl::json& message) {
  // Bytes that are not UTF-8 (a string holding "\xea\xfb") show as U+FFFD, never a JSON writer error.
  if (tapegrad_xcpp_publish != nullptr)
    tapegrad_xcpp_publish(kind, message.dump(-1, ' ', false, nl::json::error_handler_t::replace).c_str());
}

template <class T>
nl::json bundle_of(const T& value) {
  using xcpp::mime_bundle_repr;
  return mime_bundle_repr(value);  // the type's own (ADL) wins over the fallback template
}

template <class T>
void display_with(const char* kind, const T& value, const std::string& display_id) {
  nl::json message = {{"data", bundle_of(value)}, {"metadata", nl::json::object()},
                      {"transient", nl::json::object()}};
  if (!display_id.empty()) message["transient"]["display_id"] = display_id;
  publish(kind, message);
}

}  // namespace detail

// Shows value now, below the cell.
template <class T>
void display(const T& value) {
  detail::display_with("display_data", value, "");
}

// Shows value with an id; with update = true, replaces what was shown under that id.
template <class T>
void display(const T& value, const std::string& display_id, bool update = false) {
  detail::display_with(update ? "update_display_data" : "display_data", value, display_id);
}

// Clears the cell's output (wait = true: when the next output arrives).
inline void clear_output(bool wait = false) { detail::publish("clear_output", {{"wait", wait}}); }

namespace detail {

// The cell's result from a function that computes it (the kernel's earlier way; kept for code
// that calls it); the int it returns means nothing.
template <class F>
int show_result(F&& evaluate) {
  using R = decltype(evaluate());
  if constexpr (std::is_void_v<R>) {
    evaluate();
  } else if constexpr (std::is_base_of_v<std::ios_base, std::decay_t<R>>) {
    evaluate();  // `std::cout << x` without `;`: the printing is the point, not the stream
  } else {
    display_with("execute_result", evaluate(), "");
  }
  return 0;
}

// The cell's result, as the kernel writes a last expression without `;`:
//     ((expression), xcpp::detail::result_sink{});
// A value (of any category: a temporary lives until the end of the statement) goes through
// this comma operator and is shown; a void expression takes the built-in comma, and nothing
// is shown. A stream (`std::cout << x` without `;`) is not shown either: the printing was the point.
struct result_sink {};

template <class T>
result_sink operator,(T&& value, result_sink) {
  using V = std::remove_reference_t<T>;
  if constexpr (std::is_function_v<V>) {  // a function's name: cling's `(int (*)()) Function @0x...`
    publish("execute_result", {{"data", {{"text/plain", "(" + type_name<V*>() + ") Function @" + address(reinterpret_cast<const void*>(&value))}}},
                               {"metadata", nl::json::object()}, {"transient", nl::json::object()}});
  } else if constexpr (!std::is_base_of_v<std::ios_base, std::decay_t<T>>) {
    showing_type() = shown_type<V>(std::is_lvalue_reference_v<T>);
    display_with("execute_result", value, "");
    showing_type().clear();
  }
  return {};
}

}  // namespace detail
}  // namespace xcpp
