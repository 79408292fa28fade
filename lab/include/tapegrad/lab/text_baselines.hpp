#pragma once
// What a language model of the text tasks must beat: count models of the train split, scored on the validation
// split in bits per character (the mean of −log2 p over the labels, the characters val[1 .. n): the labels of the
// evaluation windows, text_task.hpp).
//
//   unigram   p(c) = (count(c) + 1) / (N + V)                       add-one (Laplace) smoothed over the V characters
//   bigram    p(c | a) = (count(a c) + V·p(c)) / (count(a ·) + V)   add-one's V pseudo-counts per context, spread by
//                                                                    the unigram p(c) above instead of evenly
// N: the train split's characters; counts over the train stream (the pairs across a record's end included, as the
// model's windows cross them too). Why not a plain add-one bigram, (count(a c) + 1) / (count(a ·) + V): with the
// poems' 2,578 characters and 26 k of training text most contexts are seen a few times, and spreading V pseudo-counts
// evenly buries them: 9.76 bits against the unigram's 9.17, a baseline worse than the simpler one. Spread by the
// unigram (a Dirichlet prior of mass V, MacKay and Peto's smoothing) it is 8.67, the better baseline, with nothing
// tuned on the validation split. Smoothing keeps a validation character never seen in training finite.

#include <cstdint>
#include <vector>

namespace tapegrad::lab {

double unigram_bpc(const std::vector<std::int64_t>& train, const std::vector<std::int64_t>& val, std::size_t vocab);
double bigram_bpc(const std::vector<std::int64_t>& train, const std::vector<std::int64_t>& val, std::size_t vocab);

}  // namespace tapegrad::lab
