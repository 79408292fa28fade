// The language the lab writes in, and the font its plots draw it with: lab_text.hpp.
#include "tapegrad/lab/lab_text.hpp"

#include "tapegrad/debug/report_language.hpp"

namespace tapegrad::lab {

// The grader's rule (zh* is Chinese), so that one TAPEGRAD_LANG sets the exercises and the lab alike.
Lang lab_language(const std::string& given) { return report_language(given) == "zh" ? Lang::zh : Lang::en; }

std::string plot_font(Lang lang) { return lang == Lang::zh ? "Noto Sans CJK SC,9" : "sans,9"; }

}  // namespace tapegrad::lab
