// The splitter, fuzzed (issue 34): cells that interleave C++'s lexical forms (cell_forms.hpp) with
// comments, preprocessor lines and blank lines, from a fixed seed. For each cell, the splitter's pieces
// are the forms it was made of, in order, of the right kind, and the cell put back together from its
// pieces and what lies between them is the cell again. Then every cell as the kernel rewrites it
// (wrap_cell) is compiled by clang, all in one file (-fsyntax-only), so that each piece compiles.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cell_forms.hpp"
#include "piece_text.hpp"
#include "cell_wrap.hpp"

using namespace tapegrad_xcpp;

namespace {

struct MadeCell {
  std::string text;
  std::vector<std::pair<Chunk::Kind, std::string>> pieces;  // what the splitter must find
};

MadeCell make_cell(std::mt19937& rng, int number) {
  const auto& forms = cell_forms::forms();
  const auto& fillers = cell_forms::fillers();
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  MadeCell cell;
  auto add = [&](Chunk::Kind kind, const std::string& text) {
    cell.text += fillers[pick(fillers.size())];
    if (!cell.text.empty() && cell.text.back() != '\n' && cell.text.back() != ' ') cell.text += '\n';
    cell.text += text;
    cell.pieces.emplace_back(kind, text);
  };
  const std::size_t count = 1 + pick(4);
  std::vector<std::size_t> used;
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t f = pick(forms.size());
    const int n = number * 10 + static_cast<int>(k);
    add(Chunk::declaration, cell_forms::numbered(forms[f].declaration, n));
    if (rng() % 2) add(Chunk::statement, cell_forms::numbered(forms[f].statement, n));
    used.push_back(f);
  }
  if (rng() % 2) {  // a last expression, of one of the forms declared above
    const std::size_t k = pick(used.size());
    add(Chunk::expression, cell_forms::numbered(forms[used[k]].expression, number * 10 + static_cast<int>(k)));
  } else if (rng() % 2) {
    cell.text += fillers[pick(fillers.size())];
  }
  return cell;
}

}  // namespace

TEST_CASE("the splitter's pieces of fuzzed cells are the forms they were made of", "[kernel][splitter][fuzz]") {
  std::mt19937 rng(34);
  std::ostringstream all;  // every cell as the kernel compiles it, for clang below
  all << "#include <iostream>\n#include <string>\n#include <vector>\n#include <utility>\n"
         "#include <xcpp/xdisplay.hpp>\n";
  for (int number = 1; number <= 300; ++number) {
    const MadeCell cell = make_cell(rng, number);
    INFO("cell " << number << ":\n" << cell.text);
    const std::vector<Chunk> chunks = split_top_level(cell.text);
    std::vector<std::pair<Chunk::Kind, std::string>> got;
    std::string put_back;
    std::size_t copied = 0;
    for (const Chunk& c : chunks) {
      got.emplace_back(c.kind, cell.text.substr(c.begin, c.end - c.begin));
      put_back += cell.text.substr(copied, c.begin - copied) + cell.text.substr(c.begin, c.end - c.begin);
      copied = c.end;
    }
    put_back += cell.text.substr(copied);
    REQUIRE(got == cell.pieces);
    REQUIRE(put_back == cell.text);
    for (const std::string& piece : wrap_cell(cell.text, static_cast<unsigned>(number))) all << piece << "\n";
  }
#if defined(TAPEGRAD_XCPP_TEST_CLANG)
  const std::string file = (std::filesystem::temp_directory_path() / "tapegrad_xcpp_splitter_fuzz.cpp").string();
  std::ofstream(file) << all.str();
  const std::string command = std::string(TAPEGRAD_XCPP_TEST_CLANG) +
                              " -std=c++17 -fsyntax-only -Wno-c++20-designator -Wno-unused-value -Wno-unused-result"
                              " -I" TAPEGRAD_XCPP_TEST_INCLUDE " " + file + " 2>&1";
  INFO("compiled with: " << command);
  CHECK(std::system(command.c_str()) == 0);
#endif
}
