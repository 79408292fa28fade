// The HTML behind the notebooks' rich display (include/tapegrad/debug/display.hpp).
// mime_bundle_repr is notebook-only; TAPEGRAD_WITH_MIME_BUNDLE turns it on here
// so the bundles xeus-cling would receive are checked too.
#define TAPEGRAD_WITH_MIME_BUNDLE
#include "tapegrad/debug/display.hpp"

#include <cstdio>
#include <fstream>

#include "helpers.hpp"

using namespace tapegrad;

TEST_CASE("to_html shows name, shape, values and gradient", "[display]") {
  Tensor w({{1.5, -2.0, 3.0}, {4.0, 5.0, 6.25}}, true, "w<1>");
  const std::string before = to_html(w);
  CHECK(before.find("'w&lt;1&gt;'") != std::string::npos);  // names are escaped
  CHECK(before.find("(2, 3)") != std::string::npos);
  CHECK(before.find(">1.5<") != std::string::npos);
  CHECK(before.find(">6.25<") != std::string::npos);
  CHECK(before.find("<i>none</i>") != std::string::npos);  // no gradient yet
  CHECK(before.find("requires grad") != std::string::npos);

  sum(mul(w, 3.0)).backward();
  const std::string after = to_html(w);
  CHECK(after.find("<i>none</i>") == std::string::npos);
  CHECK(after.find(">3<") != std::string::npos);  // d(3 Σw)/dw = 3
}

TEST_CASE("to_html cuts large tensors and handles scalars", "[display]") {
  const std::string big = to_html(Tensor(xt::zeros<double>({20, 30})));
  CHECK(big.find("showing 12 of 20 rows, 12 of 30 columns") != std::string::npos);
  const std::string scalar = to_html(Tensor(Array(2.5)));
  CHECK(scalar.find("shape ()") != std::string::npos);
  CHECK(scalar.find(">2.5<") != std::string::npos);
  CHECK(to_html(Tensor()).find("undefined") != std::string::npos);
}

TEST_CASE("to_html of the tape lists its entries", "[display]") {
  tape().clear();
  Tensor a({1.0, 2.0}, true, "a");
  Tensor y = sum(tapegrad::tanh(a));
  const std::string html = to_html(tape());
  CHECK(html.find("Tape with 2 entries") != std::string::npos);
  CHECK(html.find("<td>tanh</td><td>'a' (2)</td><td>(2)</td>") != std::string::npos);
  CHECK(html.find("<td>sum</td>") != std::string::npos);
  CHECK(mime_bundle_repr(tape())["text/plain"] == tape().to_string());
  tape().clear();
}

TEST_CASE("mime bundles carry HTML and plain text", "[display]") {
  Tensor t({1.0}, false, "t");
  const auto bundle = mime_bundle_repr(t);
  CHECK(bundle["text/html"] == to_html(t));
  CHECK(bundle["text/plain"] == t.to_string());
}

TEST_CASE("base64 matches RFC 4648's test vectors - PNGs are read as bytes", "[display]") {
  CHECK(base64_encode("") == "");
  CHECK(base64_encode("f") == "Zg==");
  CHECK(base64_encode("fo") == "Zm8=");
  CHECK(base64_encode("foo") == "Zm9v");
  CHECK(base64_encode("foob") == "Zm9vYg==");
  CHECK(base64_encode("fooba") == "Zm9vYmE=");
  CHECK(base64_encode("foobar") == "Zm9vYmFy");
  CHECK(base64_encode(std::string("\xff\x00\x80", 3)) == "/wCA");

  const std::string path = "tapegrad_display_test.png";
  {
    std::ofstream out(path, std::ios::binary);
    out << std::string("\x89PNG\r\n\x1a\n", 8);
  }
  const PngFile png{path};
  CHECK(png_base64(png) == "iVBORw0KGgo=");
  CHECK(mime_bundle_repr(png)["image/png"] == "iVBORw0KGgo=");
  std::remove(path.c_str());
  CHECK_THROWS_AS(png_base64(PngFile{"no/such/file.png"}), Error);
}
