#pragma once
// A cell's value as text, in cling's format (cling's test/Prompt/ValuePrinter): the type in parentheses
// as cling writes it, then the value.
//
//     std::vector<int>{1, 2, 3}          (std::vector<int>) { 1, 2, 3 }
//     v (a std::vector<std::string>)     (std::vector<std::string> &) { "a", "b", "c" }
//     std::map<int, int> m = ...; m      (std::map<int, int> &) { 0 => 1, 1 => 2 }
//     std::make_pair("s", 10)            (std::pair<const char *, int>) { "s", 10 }
//     std::make_tuple(1, 'c')            (std::tuple<int, char>) { 1, 'c' }
//     &i                                 (int *) 0x7ffd5c2b1a3c
//     Color::green                       (Color) (Color::green) : (int) 1
//     std::optional<int>{3}              (std::optional<int>) std::optional -> 3
// Containers longer than 1000 elements show their first and last 3, with `...` between (as xtensor
// cuts long arrays). xcpp/xmime.hpp says when this is used (types with their own mime_bundle_repr or
// operator<< show those instead). Header-only, for the kernel's precompiled header.

#include <cxxabi.h>
#include <sys/uio.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <forward_list>
#include <iterator>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace xcpp {
namespace detail {

// ---- Type names as cling writes them (std::string, no default allocators, "> >") --------------

template <class T>
std::string type_name();

template <class... Ts>
std::string template_arguments() {
  std::string out;
  ((out += (out.empty() ? "" : ", ") + type_name<Ts>()), ...);
  return out + (!out.empty() && out.back() == '>' ? " >" : ">");
}

// A name as the learner wrote it: without the inline namespaces `__tgx_12_1::` that the kernel puts
// each definition of a cell into (kernel/src/cell_wrap.hpp).
inline std::string without_kernel_namespaces(std::string name) {
  for (std::size_t at = name.find("__tgx_"); at != std::string::npos; at = name.find("__tgx_", at)) {
    std::size_t end = at + 6;
    while (end < name.size() && (std::isdigit(static_cast<unsigned char>(name[end])) || name[end] == '_')) ++end;
    if (name.compare(end, 2, "::") == 0) name.erase(at, end + 2 - at);
    else at = end;
  }
  return name;
}

template <class T, class = void>
struct type_name_of {
  static std::string get() {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(typeid(T).name(), nullptr, nullptr, &status),
                                                std::free);
    const std::string text = without_kernel_namespaces(status == 0 && name ? name.get() : typeid(T).name());
    // A lambda's type has no name: clang calls it `$_0` or `f()::{lambda(int)#1}`, cling `(lambda)`.
    return text.rfind("$_", 0) == 0 || text.find("{lambda(") != std::string::npos ? "(lambda)" : text;
  }
};

template <class T, class = void>
struct is_complete : std::false_type {};
template <class T>
struct is_complete<T, std::void_t<decltype(sizeof(T))>> : std::true_type {};
template <class T>
struct type_name_of<const T> { static std::string get() { return "const " + type_name<T>(); } };
template <class T>
struct type_name_of<T*> {
  static std::string get() {  // (typeid of an incomplete class is an error; of a pointer to one it is not)
    if constexpr (is_complete<T>::value) return type_name<T>() + " *";
    else {
      std::string name = type_name_of<T*, int>::get();  // "Incomplete*"
      if (name.size() > 1 && name.back() == '*' && name[name.size() - 2] != ' ') name.insert(name.size() - 1, " ");
      return name;
    }
  }
};
template <>
struct type_name_of<std::string> { static std::string get() { return "std::string"; } };
template <>
struct type_name_of<std::string_view> { static std::string get() { return "std::string_view"; } };
template <class T, std::size_t N>
struct type_name_of<std::array<T, N>> {
  static std::string get() { return "std::array<" + type_name<T>() + ", " + std::to_string(N) + ">"; }
};
template <class T, std::size_t N>
struct type_name_of<T[N]> { static std::string get() { return type_name<T>() + "[" + std::to_string(N) + "]"; } };
template <class T>
struct type_name_of<const T[]> { static std::string get() { return "const " + type_name<T>() + "[]"; } };

// std templates with their default arguments (a std::vector with its own allocator keeps its full name).
#define XCPP_TYPE_NAME_1(tmpl)                                                                          \
  template <class A>                                                                                    \
  struct type_name_of<std::tmpl<A>> {                                                                   \
    static std::string get() { return "std::" #tmpl "<" + template_arguments<A>(); }                   \
  };
#define XCPP_TYPE_NAME_2(tmpl)                                                                          \
  template <class A, class B>                                                                           \
  struct type_name_of<std::tmpl<A, B>> {                                                                \
    static std::string get() { return "std::" #tmpl "<" + template_arguments<A, B>(); }                \
  };
XCPP_TYPE_NAME_1(vector)
XCPP_TYPE_NAME_1(deque)
XCPP_TYPE_NAME_1(list)
XCPP_TYPE_NAME_1(forward_list)
XCPP_TYPE_NAME_1(set)
XCPP_TYPE_NAME_1(multiset)
XCPP_TYPE_NAME_1(unordered_set)
XCPP_TYPE_NAME_1(unordered_multiset)
XCPP_TYPE_NAME_1(optional)
XCPP_TYPE_NAME_1(unique_ptr)
XCPP_TYPE_NAME_1(shared_ptr)
XCPP_TYPE_NAME_1(weak_ptr)
XCPP_TYPE_NAME_2(map)
XCPP_TYPE_NAME_2(multimap)
XCPP_TYPE_NAME_2(unordered_map)
XCPP_TYPE_NAME_2(unordered_multimap)
XCPP_TYPE_NAME_2(pair)
#undef XCPP_TYPE_NAME_1
#undef XCPP_TYPE_NAME_2
template <class... Ts>
struct type_name_of<std::tuple<Ts...>> {
  static std::string get() { return "std::tuple<" + template_arguments<Ts...>(); }
};

template <>
struct type_name_of<std::nullptr_t> { static std::string get() { return "std::nullptr_t"; } };
template <class R, class... A>  // a function pointer: as the compiler writes it, `int (*)(double)`
struct type_name_of<R (*)(A...)> : type_name_of<R (*)(A...), int> {};

template <class T>
std::string type_name() {
  return type_name_of<T>::get();
}

// ---- What cling prints for a value -------------------------------------------------------------

template <class T, class = void>
struct is_range : std::false_type {};
template <class T>
struct is_range<T, std::void_t<decltype(std::begin(std::declval<const T&>())), decltype(std::end(std::declval<const T&>()))>>
    : std::true_type {};

template <class T>
struct is_std_template : std::false_type {};  // pair, tuple, optional, smart pointers
template <class A, class B>
struct is_std_template<std::pair<A, B>> : std::true_type {};
template <class... Ts>
struct is_std_template<std::tuple<Ts...>> : std::true_type {};
template <class T>
struct is_std_template<std::optional<T>> : std::true_type {};
template <class T, class D>
struct is_std_template<std::unique_ptr<T, D>> : std::true_type {};
template <class T>
struct is_std_template<std::shared_ptr<T>> : std::true_type {};
template <class T>
struct is_std_template<std::weak_ptr<T>> : std::true_type {};

template <class T>
constexpr bool is_string_like = std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view> ||
                                std::is_same_v<T, const char*> || std::is_same_v<T, char*>;

// A lambda without captures: its only "operator<<" is its conversion to a function pointer (shown as
// `1`), so it is shown as an object, as cling does.
template <class T, class = void>
struct decays_to_function_pointer : std::false_type {};
template <class T>
struct decays_to_function_pointer<T, std::void_t<decltype(+std::declval<const T&>())>>
    : std::bool_constant<std::is_class_v<T> && std::is_pointer_v<decltype(+std::declval<const T&>())> &&
                         std::is_function_v<std::remove_pointer_t<decltype(+std::declval<const T&>())>>> {};

template <class T, class = void>
struct has_ostream : std::false_type {};
template <class T>
struct has_ostream<T, std::void_t<decltype(std::declval<std::ostream&>() << std::declval<const T&>())>>
    : std::bool_constant<!decays_to_function_pointer<T>::value> {};

// Whether cling's format shows a value of type T (rather than its operator<<, or only its type):
// builtins, strings, containers, C arrays, pair/tuple/optional/smart pointers, pointers and enums.
template <class T>
constexpr bool cling_printed = std::is_arithmetic_v<T> || is_string_like<T> || std::is_same_v<T, std::nullptr_t> ||
                               (is_range<T>::value && !has_ostream<T>::value) || std::is_array_v<T> ||
                               is_std_template<T>::value || std::is_pointer_v<T> || std::is_enum_v<T>;

inline std::string quoted(std::string_view s, char quote) {
  std::string out(1, quote);
  for (const char c : s) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\\': out += "\\\\"; break;
      default:
        if (c == quote) {
          out += '\\';
          out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += hex;
        } else {
          out += c;
        }
    }
  }
  return out + quote;
}

inline std::string address(const void* p) {
  if (p == nullptr) return "nullptr";
  char text[32];
  std::snprintf(text, sizeof text, "%p", p);
  return text;
}

// Whether one byte at p can be read (the kernel's own process reading itself: EFAULT, never a crash).
inline bool readable(const void* p) {
  char byte = 0;
  iovec local{&byte, 1}, remote{const_cast<void*>(p), 1};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == 1;
}

// A pointer's value as cling shows it: its address, with a marker if nothing can be read there.
inline std::string pointer_text(const void* p) {
  return p == nullptr || readable(p) ? address(p) : address(p) + " <invalid memory address>";
}

// An enumerator's name from the compiler (clang: "... [V = Color::green]"), for the values -16..127;
// "" for another value or one that names no enumerator. Values outside an enum's range are skipped
// (fits): clang rejects them as template arguments.
template <auto V>
const char* enumerator_signature() {
  return __PRETTY_FUNCTION__;
}
template <class E, int V, class = void>
struct fits : std::false_type {};
template <class E, int V>
struct fits<E, V, std::void_t<std::integral_constant<E, static_cast<E>(V)>>> : std::true_type {};
template <class E, int V>
std::string enumerator_name_if(E value) {
  if constexpr (fits<E, V>::value) {
    if (static_cast<long long>(value) != V) return "";
    const std::string s = enumerator_signature<static_cast<E>(V)>();
    const std::size_t at = s.find("V = ");
    const std::size_t end = s.find(']', at);
    return at == std::string::npos || s.compare(at + 4, 1, "(") == 0 ? ""
                                                                     : without_kernel_namespaces(s.substr(at + 4, end - at - 4));
  } else {
    return "";
  }
}
template <class E, int... I>
std::string enumerator_name(E value, std::integer_sequence<int, I...>) {
  std::string name;
  ((name += enumerator_name_if<E, I - 16>(value)), ...);
  return name;
}

template <class T>
std::string value_text(const T& value);

template <class Tuple, std::size_t... I>
std::string tuple_text(const Tuple& t, std::index_sequence<I...>) {
  std::string out;
  ((out += (I == 0 ? "" : ", ") + value_text(std::get<I>(t))), ...);
  return sizeof...(I) == 0 ? "{}" : "{ " + out + " }";
}

inline constexpr std::size_t kShownWhole = 1000;  // longer containers: first and last kEdge elements
inline constexpr std::size_t kEdge = 3;

template <class T>
struct is_map_entry : std::false_type {};  // a map's element: shown as key => value
template <class K, class V>
struct is_map_entry<std::pair<const K, V>> : std::true_type {};

template <class R>
std::string range_text(const R& range) {
  using Element = std::decay_t<decltype(*std::begin(range))>;
  std::size_t size = 0;
  for (auto it = std::begin(range); it != std::end(range); ++it) ++size;
  if (size == 0) return "{}";
  std::string out = "{ ";
  std::size_t k = 0;
  for (auto it = std::begin(range); it != std::end(range); ++it, ++k) {
    if (size > kShownWhole && k >= kEdge && k < size - kEdge) {
      if (k == kEdge) out += "..., ";
      continue;
    }
    if constexpr (is_map_entry<Element>::value) out += value_text(it->first) + " => " + value_text(it->second);
    else out += value_text(*it);
    out += k + 1 < size ? ", " : " ";
  }
  return out + "}";
}

template <class A, class B>
std::string std_template_text(const std::pair<A, B>& p) {
  return "{ " + value_text(p.first) + ", " + value_text(p.second) + " }";
}
template <class... Ts>
std::string std_template_text(const std::tuple<Ts...>& t) {
  return tuple_text(t, std::index_sequence_for<Ts...>{});
}
template <class T>
std::string std_template_text(const std::optional<T>& o) {
  return o ? "std::optional -> " + value_text(*o) : "std::nullopt";
}
template <class T, class D>
std::string std_template_text(const std::unique_ptr<T, D>& p) {
  return "std::unique_ptr -> " + address(p.get());
}
template <class T>
std::string std_template_text(const std::shared_ptr<T>& p) {
  return "std::shared_ptr -> " + address(p.get());
}
template <class T>
std::string std_template_text(const std::weak_ptr<T>& p) {
  return "std::weak_ptr -> " + address(p.lock().get());
}

template <class T>
std::string value_text(const T& value) {
  if constexpr (std::is_same_v<T, bool>) {
    return value ? "true" : "false";
  } else if constexpr (std::is_same_v<T, char> || std::is_same_v<T, signed char> || std::is_same_v<T, unsigned char>) {
    return quoted(std::string_view(reinterpret_cast<const char*>(&value), 1), '\'');
  } else if constexpr (std::is_same_v<T, float>) {
    std::ostringstream out;
    out.precision(6);
    out << std::showpoint << value << "f";
    return out.str();
  } else if constexpr (std::is_floating_point_v<T>) {
    std::ostringstream out;
    out.precision(8);
    out << std::showpoint << value << (std::is_same_v<T, long double> ? "L" : "");
    return out.str();
  } else if constexpr (std::is_arithmetic_v<T>) {
    return std::to_string(value);
  } else if constexpr (is_string_like<T>) {
    if constexpr (std::is_pointer_v<T>) {
      if (value == nullptr) return "nullptr";
      if (!readable(value)) return pointer_text(value);
    }
    return quoted(std::string_view(value), '"');
  } else if constexpr (std::is_same_v<T, std::nullptr_t>) {
    return "nullptr";
  } else if constexpr (std::is_enum_v<T>) {
    using U = std::underlying_type_t<T>;
    std::string name = enumerator_name(value, std::make_integer_sequence<int, 144>{});
    if (!name.empty() && name.find("::") == std::string::npos) name = type_name<T>() + "::" + name;  // unscoped
    return (name.empty() ? "" : "(" + name + ") : ") + "(" + type_name<U>() + ") " + value_text(+static_cast<U>(value));
  } else if constexpr (std::is_array_v<T> && std::is_same_v<std::remove_cv_t<std::remove_extent_t<T>>, char>) {
    return quoted(std::string_view(value), '"');
  } else if constexpr (std::is_array_v<T>) {
    return range_text(value);
  } else if constexpr (std::is_pointer_v<T> && std::is_function_v<std::remove_pointer_t<T>>) {
    return "Function @" + address(reinterpret_cast<const void*>(value));
  } else if constexpr (std::is_pointer_v<T>) {
    return pointer_text(reinterpret_cast<const void*>(value));
  } else if constexpr (is_std_template<T>::value) {
    return std_template_text(value);
  } else if constexpr (is_range<T>::value && !has_ostream<T>::value) {
    return range_text(value);
  } else if constexpr (has_ostream<T>::value) {
    std::ostringstream out;
    out << value;
    return out.str();
  } else {
    return "@" + address(&value);  // cling: an object it cannot show
  }
}

}  // namespace detail
}  // namespace xcpp
