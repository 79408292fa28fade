// tapegrad/debug/text_width.hpp: the columns a text takes on screen, which aligns the Chinese tables of
// the grader's report and the lab's summary.txt (std::setw counts bytes).

#include <catch2/catch.hpp>

#include "tapegrad/debug/text_width.hpp"

using tapegrad::display_width;
using tapegrad::pad_left;
using tapegrad::pad_right;

TEST_CASE("display_width: two columns per Chinese character, one per other character", "[text_width]") {
  CHECK(display_width("") == 0);
  CHECK(display_width("placement") == 9);
  CHECK(display_width("放置方式") == 8);            // 4 characters, 12 bytes
  CHECK(std::string("放置方式").size() == 12);
  CHECK(display_width("学习率=0.01 预热=0") == 18);  // mixed: 5 wide, 8 narrow
  CHECK(display_width("，：（）") == 8);              // full-width punctuation is wide too
  CHECK(display_width("“~D”") == 4);                  // curly quotes are not (East Asian ambiguous: narrow)
  CHECK(display_width("γ β") == 3);                   // 2-byte characters: one column each
  CHECK(display_width("\xF0\xA0\x80\x80") == 2);      // U+20000, an ideograph outside the BMP
}

TEST_CASE("pad_right and pad_left pad to columns, not bytes", "[text_width]") {
  CHECK(pad_right("post", 8) == "post    ");
  CHECK(pad_left("32", 5) == "   32");
  CHECK(pad_right("放置方式", 10) == "放置方式  ");  // 8 columns + 2 spaces
  CHECK(pad_left("预热", 6) == "  预热");
  CHECK(pad_right("放置方式", 4) == "放置方式");      // wider than asked: as it is
  CHECK(display_width(pad_right("学习率", 9)) == display_width(pad_right("lr", 9)));
}
