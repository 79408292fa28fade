// What the kernel's precompiled header holds (kernel/CMakeLists.txt makes it, clang_start.cpp
// loads it): the headers a notebook's first cells include, and those of the rich display.
#include <tapegrad/tapegrad.hpp>
#include <xcpp/xdisplay.hpp>
#include <xcpp/xmime.hpp>
#include <nlohmann/json.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xio.hpp>
#include <chrono>
#include <iostream>
#include <string>
#include <vector>
