#pragma once
// Every word the lab writes for a reader (summary.txt, index.html, the plots' titles, axes and keys), in
// English and Chinese, in one place: a translation is read beside its English. The terms are those of
// docs/glossary.md. What a program reads stays English in both languages: CSV columns, JSON keys, file
// names, option names and the placement names (post, pre, deepnorm, ...); numbers are written the same.
//
// A Phrase takes both texts in its constructor, so a phrase without its translation does not compile.
// Sentences whose word order differs are built from pieces that each language fills in its own way
// (a piece may be "" in one language).

#include <cstddef>
#include <string>

namespace tapegrad::lab {

enum class Lang { en, zh };

// The language asked for: `given` (--lang), else $TAPEGRAD_LANG; "zh", "zh_CN.UTF-8", ... (zh*) is Chinese,
// anything else English (tapegrad/debug/report_language.hpp: as the exercises' grader reads it).
Lang lab_language(const std::string& given);

struct Phrase {
  constexpr Phrase(const char* english, const char* chinese) : en(english), zh(chinese) {}
  const char* en;
  const char* zh;
  std::string in(Lang lang) const { return lang == Lang::zh ? zh : en; }
};

// The font gnuplot draws a figure's text in: 'sans,9', and one that has the Chinese characters for zh
// (Debian's fonts-noto-cjk; without it cairo falls back to another font, or draws boxes).
std::string plot_font(Lang lang);

namespace text {

// ---- summary.txt (summary.cpp) ----
inline constexpr Phrase placement{"placement", "放置方式"};
inline constexpr Phrase lr_is{"lr=", "学习率="};
inline constexpr Phrase warmup_is{" warmup=", " 预热="};
inline constexpr Phrase deepest{"Deepest stack that trained (depths tried: ", "训练成功的最深堆叠（尝试的深度："};
inline constexpr Phrase before_runs{"; ", "；每个深度 "};
inline constexpr Phrase run_one{" run", " 次运行"};
inline constexpr Phrase run_many{" runs", " 次运行"};
inline constexpr Phrase per_depth{" per depth: ", "："};
inline constexpr Phrase seed_one{" seed", " 个随机种子"};
inline constexpr Phrase seed_many{" seeds", " 个随机种子"};
inline constexpr Phrase times_other_axes{" x widths, steps, batches", " × 宽度、步数、批大小"};
inline constexpr Phrase deepest_end{"):\n", "）：\n"};
inline constexpr Phrase verdict_trained{"The verdict at a depth is its median run's final eval loss: trained below 0.5*ln(",
                                        "某一深度的判定看其中位数运行的最终评估损失：低于 0.5*ln("};
inline constexpr Phrase verdict_collapsed{",\ncollapsed above 0.7*ln(", " 为训练成功，\n高于 0.7*ln("};
// A text task's verdict (text_run.hpp): the corpus's bigram and unigram baselines, in bits per character and nats.
inline constexpr Phrase text_verdict_trained{
    "The verdict at a depth is its median run's final validation loss: trained below ",
    "某一深度的判定看其中位数运行的最终验证损失：低于 "};
inline constexpr Phrase text_verdict_nats{" bits per character (", " 比特/字符（"};
inline constexpr Phrase text_verdict_midpoint{" nats), half-way from the unigram baseline's ",
                                              " nats，即一元（unigram）基线 "};
inline constexpr Phrase text_verdict_to_bigram{" to the bigram's ", " 与二元（bigram）基线 "};
inline constexpr Phrase text_verdict_collapsed{",\ncollapsed above the unigram baseline's ", " 的中点）为训练成功，\n高于一元基线的 "};
inline constexpr Phrase text_verdict_end{" nats)", " nats）"};
inline constexpr Phrase verdict_legend{
    " (a NaN/Inf run counts as the worst). \"~D\": at depth D the median lies between the two,\n"
    "neither trained nor collapsed. \"-\": no depth trained; \"*\": a shallower depth did not train; "
    "\"?\": runs missing.\n",
    " 为崩溃（出现 NaN/Inf 的运行算作最差）。“~D”：深度 D 的中位数介于两者之间，\n"
    "既没有训练成功也没有崩溃。“-”：没有一个深度训练成功；“*”：某个更浅的深度没有训练成功；“?”：缺少运行。\n"};
inline constexpr Phrase few_seeds{
    "With fewer than 3 seeds a verdict rests on single chaotic runs: the last bits of a BLAS kernel can move it.\n",
    "随机种子少于 3 个时，判定取决于单次混沌的运行：BLAS 内核的最后几位就能改变它。\n"};
inline constexpr Phrase failed_of{" of ", " 次失败，共 "};
inline constexpr Phrase runs_failed{" runs failed (", " 次运行（"};
inline constexpr Phrase with_nonfinite{" with NaN/Inf, ", " 次出现 NaN/Inf，"};
inline constexpr Phrase collapsed_count{" collapsed: final eval loss above the threshold).\n",
                                        " 次崩溃：最终评估损失高于阈值）。\n"};

// ---- index.html (html_report.cpp) ----
inline constexpr Phrase page_font{"sans-serif", "'Noto Sans CJK SC','Noto Sans CJK',sans-serif"};
// The summary's text and the tables in a monospace font whose Chinese characters are exactly two Latin ones
// wide, so that summary.txt's columns (aligned by display width) stay straight on the page too.
inline constexpr Phrase page_mono_font{"", "pre,td,th{font-family:'Noto Sans Mono CJK SC',monospace}"};
inline constexpr Phrase sweep_in{"Depth sweep in ", "深度扫描（sweep）："};
inline constexpr Phrase finished_before{"", "已完成 "};
inline constexpr Phrase finished_runs{" finished runs. Files: ", " 次运行。文件："};
inline constexpr Phrase list_sep{", ", "、"};
inline constexpr Phrase sentence_end{".", "。"};
inline constexpr Phrase summary{"Summary", "汇总"};
inline constexpr Phrase lr{"lr", "学习率"};
inline constexpr Phrase warmup{"warmup", "预热"};
inline constexpr Phrase trained{"trained", "训练成功"};
inline constexpr Phrase between{"between", "介于两者之间"};
inline constexpr Phrase failed{"failed", "失败"};
inline constexpr Phrase median_open{" (median ", "（中位数 "};
inline constexpr Phrase close{")", "）"};
inline constexpr Phrase plots{"Plots", "图"};
inline constexpr Phrase no_plots{"No plots (gnuplot was not there, or --no-plots).", "没有图（没有找到 gnuplot，或用了 --no-plots）。"};
inline constexpr Phrase options{"Options", "选项"};
inline constexpr Phrase runs{"Runs", "运行"};
inline constexpr Phrase run{"run", "运行"};
inline constexpr Phrase train_loss{"train loss", "训练损失"};
inline constexpr Phrase eval_loss{"eval loss", "评估损失"};
inline constexpr Phrase result{"result", "结果"};
inline constexpr Phrase files{"files", "文件"};
inline constexpr Phrase failed_at_step{"failed at step ", "失败于第 "};
inline constexpr Phrase step_colon{": ", " 步："};

// ---- the figures (training_figures.cpp, diagnostic_figures.cpp, plot_style.cpp, plot_figure.cpp) ----
inline constexpr Phrase lr_eq{"lr = ", "学习率 = "};
inline constexpr Phrase warmup_eq{", warmup = ", "，预热 = "};
inline constexpr Phrase curves_title{"training loss (minibatch) against step at lr = ", "训练损失（minibatch）随步数的变化，学习率 = "};
inline constexpr Phrase one_run_per_line{"\none run per line: ", "\n每条线是一次运行："};
inline constexpr Phrase step{"step", "步数"};
inline constexpr Phrase loss{"loss", "损失"};
inline constexpr Phrase seed_is{"seed ", "随机种子 "};
inline constexpr Phrase width_is{", d = ", "，d = "};
inline constexpr Phrase batch_is{", batch ", "，批大小 "};
inline constexpr Phrase note_sep{", ", "，"};
inline constexpr Phrase steps_word{" steps", " 步"};
inline constexpr Phrase first_of_settings{" (the first of the sweep's settings)", "（扫描设置中的第一组）"};
inline constexpr Phrase listed_open{"; ", "；"};
inline constexpr Phrase first_listed{" (the first listed: summary.txt has a row for each)", "（列出的第一个值：summary.txt 每个值一行）"};
inline constexpr Phrase one_run_per_point{"one run per point: seed ", "每个点是一次运行：随机种子 "};
inline constexpr Phrase each_point_the{"each point the ", "每个点取"};
inline constexpr Phrase mean{"mean", "均值"};
inline constexpr Phrase median{"median", "中位数"};
inline constexpr Phrase over{" over ", "，范围："};
inline constexpr Phrase seeds_is{"seeds ", "随机种子 "};
inline constexpr Phrase widths_is{"widths ", "宽度 "};
inline constexpr Phrase steps_is{"steps ", "步数 "};
inline constexpr Phrase batches_is{"batches ", "批大小 "};
inline constexpr Phrase and_word{" and ", " 和 "};
inline constexpr Phrase chance{"chance: ln K = ln ", "随机猜测：ln K = ln "};
inline constexpr Phrase eval_vs_depth_title{"final eval loss against depth (", "最终评估损失随深度的变化（"};
inline constexpr Phrase eval_vs_depth_lines{
    ")\nthe summary's verdict: trained below the lower grey line, collapsed above the upper; markers offset "
    "sideways per placement",
    "）\n汇总的判定：低于下方灰线为训练成功，高于上方灰线为崩溃；各放置方式的标记横向错开"};
inline constexpr Phrase depth_axis{"depth L (blocks)", "深度 L（块数）"};
inline constexpr Phrase trained_below{"trained below 0.5 ln K = ", "训练成功：低于 0.5 ln K = "};
inline constexpr Phrase failed_above{"failed above 0.7 ln K = ", "失败：高于 0.7 ln K = "};
inline constexpr Phrase init_title{"at initialisation, on the first minibatch: L = ", "初始化时，第一个 minibatch 上：L = "};
inline constexpr Phrase init_lines{"\n(the same for every lr and warmup); markers offset sideways per placement",
                                   "\n（对每个学习率和预热都相同）；各放置方式的标记横向错开"};
inline constexpr Phrase hidden_norm{"hidden-state norm after each block", "每个块之后的隐藏状态范数"};
inline constexpr Phrase grad_per_block{"||dL/dW|| per block, W = ", "每个块的 ||dL/dW||，W = "};
inline constexpr Phrase block_index{"block index l", "块序号 l"};
inline constexpr Phrase hidden_rms{"RMS over the batch of ||h_l||", "||h_l|| 在 batch 上的 RMS"};
inline constexpr Phrase grad_norm{"gradient norm (Frobenius)", "梯度范数（Frobenius）"};
inline constexpr Phrase last_block_title{"at initialisation: the last block's ||dL/dW|| against depth (",
                                         "初始化时：最后一个块的 ||dL/dW|| 随深度的变化（"};
inline constexpr Phrase batch_in_note{"; batch ", "；批大小 "};
inline constexpr Phrase last_block_lines{
    ")\nXiong et al. 2020, Thm. 1: Post-Norm's does not shrink with L, Pre-Norm's shrinks like 1/sqrt(L); markers "
    "offset sideways per placement",
    "）\nXiong 等 2020，定理 1：Post-Norm 的不随 L 减小，Pre-Norm 的按 1/sqrt(L) 减小；各放置方式的标记横向错开"};
inline constexpr Phrase w_of_block_before{"W = ", "块 L-1 的 W = "};
inline constexpr Phrase w_of_block_after{" of block L-1", ""};
inline constexpr Phrase slope_through{"slope 1/sqrt(L) (through ", "斜率 1/sqrt(L)（过 "};
inline constexpr Phrase output_change_title{
    "how far the first Adam step moves the output: RMS over the probe batch of ||f(x;theta_1) - f(x;theta_0)||"
    "\n(f = the logits; ",
    "第一步 Adam 更新让输出移动多远：探测 batch 上 ||f(x;theta_1) - f(x;theta_0)|| 的 RMS\n（f = logits；"};
inline constexpr Phrase output_change_lines{")\nLiu et al. 2020: Post-Norm's grows with depth; markers offset sideways per placement",
                                            "）\nLiu 等 2020：Post-Norm 的随深度增长；各放置方式的标记横向错开"};
inline constexpr Phrase first_step_lr{": first step's lr ", "：第一步的学习率 "};
inline constexpr Phrase output_change_axis{"output change (RMS)", "输出变化（RMS）"};
inline constexpr Phrase not_on_log_axis{" (0: not on the log axis)", "（0：不在对数轴上）"};
inline constexpr Phrase zeros_open{" (", "（"};
inline constexpr Phrase zeros_not_drawn{" zeros not drawn)", " 个 0 未画出）"};
inline constexpr Phrase coincide_open{"\n(", "\n（"};
inline constexpr Phrase coincide{" coincide", " 重合"};
inline constexpr Phrase markers_offset{": markers offset sideways", "：标记横向错开"};
inline constexpr Phrase clipped{"clipped / NaN (above the range; at the top)", "截断 / NaN（超出范围；画在顶部）"};
inline constexpr Phrase no_data{"no data", "无数据"};

}  // namespace text
}  // namespace tapegrad::lab
