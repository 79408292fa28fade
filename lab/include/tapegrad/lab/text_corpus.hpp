#pragma once
// The text tasks' corpus (RunConfig::task poems or english): a fortune file read, cleaned, split by fortune into
// train and validation, and turned into character ids.
//
//   the file     fortune(6)'s format: records separated by lines holding only "%". fortunes-zh's tang300 has one
//                poem a record: its title in green (ESC[32m ... ESC[m), its author in yellow (ESC[33m), then the
//                lines of the poem.
//   cleaning     every escape sequence (ESC [ ... letter: the colours) is removed, the text of the coloured lines
//                kept: a poem is its title, its author ("作者：李白") and its lines, as a reader sees them (the
//                headings are a third of tang300's characters, and the model learns their form too). Then tabs
//                become spaces, '\r' goes, lines lose their trailing blanks, blank lines are dropped. A record is
//                its lines, each ending in '\n'; a record with no line left is dropped.
//   split        by record, deterministically: every kValEvery-th record (index % kValEvery == kValEvery − 1) is
//                validation, the others train. No poem is in both, so the validation loss is on unseen poems.
//   vocabulary   the distinct characters (Unicode code points) of the whole corpus, sorted: a validation
//                character unseen in training still has an id (the baselines' add-one smoothing gives it mass).
//   streams      each split is its records concatenated, as ids: what the windows (text_task.hpp) are cut from.

#include <cstdint>
#include <string>
#include <vector>

#include "tapegrad/lab/run_config.hpp"

namespace tapegrad::lab {

constexpr std::size_t kValEvery = 10;  // 1 record in 10 is validation

// The file of a task (poems: /usr/share/games/fortunes/tang300; english: .../fortunes) and the Debian package
// that ships it (fortunes-zh, fortunes). Synthetic has none (an Error).
std::string default_corpus_path(Task task);
std::string corpus_package(Task task);

// The cleaned records of a fortune file's text (the rules above).
std::vector<std::u32string> clean_fortunes(const std::string& text);

// UTF-8 <-> code points (invalid bytes: an Error naming the byte offset).
std::u32string decode_utf8(const std::string& text);
std::string encode_utf8(const std::u32string& text);

struct Vocabulary {
  std::u32string chars;  // sorted; id i is chars[i]
  std::size_t size() const { return chars.size(); }
  std::int64_t id(char32_t c) const;  // an Error for a character not in it
  std::vector<std::int64_t> encode(const std::u32string& text) const;
  std::u32string decode(const std::vector<std::int64_t>& ids) const;
};

struct TextCorpus {
  std::string path;
  std::size_t records = 0, train_records = 0, val_records = 0;
  Vocabulary vocab;
  std::vector<std::int64_t> train, val;  // the splits' streams of ids
};

// The corpus from records (the split and vocabulary above).
TextCorpus make_corpus(const std::vector<std::u32string>& records, std::string path = "");
// Reads and cleans `path` ("" : the task's default file). A missing or unreadable file: an Error naming the path
// and the Debian package to install; a file with fewer than kValEvery records: an Error (no validation split).
TextCorpus load_corpus(Task task, const std::string& path = "");

}  // namespace tapegrad::lab
