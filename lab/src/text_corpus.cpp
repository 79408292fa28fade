#include "tapegrad/lab/text_corpus.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace tapegrad::lab {

std::string default_corpus_path(Task task) {
  switch (task) {
    case Task::poems: return "/usr/share/games/fortunes/tang300";
    case Task::english: return "/usr/share/games/fortunes/fortunes";
    case Task::synthetic: break;
  }
  throw Error("default_corpus_path: the synthetic task reads no corpus");
}

std::string corpus_package(Task task) {
  switch (task) {
    case Task::poems: return "fortunes-zh";
    case Task::english: return "fortunes";
    case Task::synthetic: break;
  }
  throw Error("corpus_package: the synthetic task reads no corpus");
}

namespace {

constexpr char kEscape = '\x1b';

// ESC [ parameters final-letter: a colour code; removed.
std::string without_escapes(const std::string& line) {
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == kEscape && i + 1 < line.size() && line[i + 1] == '[') {
      std::size_t j = i + 2;
      while (j < line.size() && !std::isalpha(static_cast<unsigned char>(line[j]))) ++j;
      i = j;  // skips the final letter too
      continue;
    }
    if (line[i] == '\r') continue;
    out += line[i] == '\t' ? ' ' : line[i];
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace

std::vector<std::u32string> clean_fortunes(const std::string& text) {
  std::vector<std::u32string> records;
  std::string record;
  auto close = [&] {
    if (!record.empty()) records.push_back(decode_utf8(record));
    record.clear();
  };
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line == "%") {
      close();
      continue;
    }
    const std::string kept = without_escapes(line);
    if (kept.empty()) continue;
    record += kept + '\n';
  }
  close();
  return records;
}

std::u32string decode_utf8(const std::string& text) {
  std::u32string out;
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    const std::size_t n = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > text.size())
      throw Error("decode_utf8: not UTF-8 at byte " + std::to_string(i) + " (a fortune file's .u8 text expected)");
    char32_t c = n == 1 ? b : b & (0x7f >> n);
    for (std::size_t k = 1; k < n; ++k) {
      const auto cont = static_cast<unsigned char>(text[i + k]);
      if ((cont >> 6) != 2) throw Error("decode_utf8: not UTF-8 at byte " + std::to_string(i + k));
      c = (c << 6) | (cont & 0x3f);
    }
    out += c;
    i += n;
  }
  return out;
}

std::string encode_utf8(const std::u32string& text) {
  std::string out;
  for (char32_t c : text) {
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xc0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3f));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xe0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (c & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (c & 0x3f));
    }
  }
  return out;
}

std::int64_t Vocabulary::id(char32_t c) const {
  const auto it = std::lower_bound(chars.begin(), chars.end(), c);
  if (it == chars.end() || *it != c)
    throw Error("Vocabulary: the character U+" + std::to_string(static_cast<std::uint32_t>(c)) +
                " ('" + encode_utf8(std::u32string(1, c)) + "') is not in the corpus's vocabulary");
  return it - chars.begin();
}

std::vector<std::int64_t> Vocabulary::encode(const std::u32string& text) const {
  std::vector<std::int64_t> ids;
  ids.reserve(text.size());
  for (char32_t c : text) ids.push_back(id(c));
  return ids;
}

std::u32string Vocabulary::decode(const std::vector<std::int64_t>& ids) const {
  std::u32string text;
  for (std::int64_t i : ids) text += chars.at(static_cast<std::size_t>(i));
  return text;
}

TextCorpus make_corpus(const std::vector<std::u32string>& records, std::string path) {
  TextCorpus corpus;
  corpus.path = std::move(path);
  if (records.size() < kValEvery)
    throw Error("text corpus " + corpus.path + ": " + std::to_string(records.size()) + " records, fewer than the " +
                std::to_string(kValEvery) + " a validation split needs (one record in " + std::to_string(kValEvery) +
                " is validation)");
  std::u32string all;
  for (const auto& r : records) all += r;
  corpus.vocab.chars = all;
  std::sort(corpus.vocab.chars.begin(), corpus.vocab.chars.end());
  corpus.vocab.chars.erase(std::unique(corpus.vocab.chars.begin(), corpus.vocab.chars.end()), corpus.vocab.chars.end());
  corpus.records = records.size();
  for (std::size_t i = 0; i < records.size(); ++i) {
    const bool is_val = i % kValEvery == kValEvery - 1;
    std::vector<std::int64_t>& stream = is_val ? corpus.val : corpus.train;
    const std::vector<std::int64_t> ids = corpus.vocab.encode(records[i]);
    stream.insert(stream.end(), ids.begin(), ids.end());
    ++(is_val ? corpus.val_records : corpus.train_records);
  }
  return corpus;
}

TextCorpus load_corpus(Task task, const std::string& path_given) {
  const std::string path = path_given.empty() ? default_corpus_path(task) : path_given;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error("the " + to_string(task) + " corpus " + path + " cannot be read; it comes with the Debian package " +
                corpus_package(task) + ": sudo apt-get install " + corpus_package(task) +
                " (or scripts/deps.sh lab as root)");
  std::ostringstream text;
  text << in.rdbuf();
  return make_corpus(clean_fortunes(text.str()), path);
}

}  // namespace tapegrad::lab
