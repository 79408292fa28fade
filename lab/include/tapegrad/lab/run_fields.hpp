#pragma once
// The one list of RunConfig's fields (lab/src/run_fields.cpp holds the table). Everything that writes,
// reads or checks a field goes through it:
//   the command line      each field with an option is declared from its row (name, help, list or not),
//                         its words parsed by Field::parse and checked by Field::problem;
//   config.json           to_json / run_config_from_json write and read every row, in the table's order;
//   sweep.json, expand    the axes (in their canonical order) and the other fields (sweep.cpp);
//   the run id, seeds     the rows' id column: which part, where, and when it shows (run_config.cpp);
//   validate()            every row's range or choices, then the rules between fields (run_config.cpp).
//
// A new field (e.g. --precision) is a member of RunConfig, a row in the table, and, if a sweep lists
// several values, a list in SweepGrid; nothing else needs to know it.

#include <functional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "tapegrad/lab/sweep_grid.hpp"

namespace tapegrad::lab {

// A field's value on its way in or out: a count (long long, so that "-4" is seen as -4 and refused rather
// than wrapped around), a real (lr), or a choice's name ("post", "xavier").
using FieldValue = std::variant<long long, double, std::string>;

struct Field {
  // axis: swept in every sweep (a list in SweepGrid, canonical order `axis_rank`); task: one value per sweep,
  // the data's; setting: the architecture's choices, one value per sweep unless the grid lists several.
  enum class Role { axis, task, setting };
  // When the run id (and the init seed, for fields in it) mentions the field.
  enum class Shown { always, unless_default, transformer_only, never };

  std::string key;      // config.json's and sweep.json's name; validate()'s messages: "depth"
  std::string sweep_key;  // sweep.json's: the axes' lists are plural ("depths", "widths"), the rest as `key`
  std::string option;   // the command line's ("--depths"); "" if there is none (d_in, classes, ...)
  std::string help;     // --help's line
  std::string what;     // the value in messages: "a depth (number of blocks)"
  Role role = Role::task;
  int axis_rank = 0;    // axes: 1 = outermost of the canonical order ... (sweep.json lists them so)
  // The run id: "<prefix><value><suffix>" at position id_rank (ascending), when `id_shown` says.
  int id_rank = 0;
  std::string id_prefix, id_suffix;
  Shown id_shown = Shown::never;
  bool in_init_seed = false;     // the setting changes what the init draws (init_seed mentions it as the id does)
  bool transformer_only = false; // the command line refuses it for --arch ffn
  bool absent_means_default = false;  // config.json and sweep.json written before the field existed lack it
  // config.json and sweep.json leave the field out at its default, so that the files of a sweep that does not
  // use it stay byte for byte what they were before it existed (precision).
  bool omitted_at_default = false;
  std::string sweep_default;     // the default sweep's words ("2,4,8,16,32"); "" = RunConfig's default

  // The range or the choices.
  enum class Kind { count, real, choice } kind = Kind::count;
  long long min = 0, max = 0;        // count: min <= value <= max
  // real: a finite number > 0 (a learning rate), or with `probability` one in [0, 1) (a dropout rate: 1 would
  // drop everything and leave nothing to train).
  bool probability = false;
  std::vector<std::string> choices;  // choice: the names, in the enum's order

  // Access, built by the table from the member (and the grid's list, for axes).
  std::function<FieldValue(const RunConfig&)> get;
  std::function<void(RunConfig&, const FieldValue&)> set;  // a value that passed problem()
  std::function<std::vector<FieldValue>(const SweepGrid&)> grid_values;       // the axis' list, else {base}
  std::function<void(SweepGrid&, const std::vector<FieldValue>&)> set_grid_values;

  // What is wrong with a value ("" if nothing): the type, the range or the choices.
  std::string problem(const FieldValue& value) const;
  // A word of the command line as a value of this field (not yet checked against the range); throws
  // FieldError if it is no number of the right kind.
  FieldValue parse(const std::string& word) const;
  // The canonical text: counts in decimal, reals by format_double, choices by name.
  static std::string text(const FieldValue& value);
  bool is_axis() const { return role == Role::axis; }
};

// The table, in config.json's order.
const std::vector<Field>& run_fields();
// The row of a key; throws Error for an unknown one.
const Field& run_field(const std::string& key);
// The axes in their canonical order (placement outermost, seed innermost).
std::vector<const Field*> axes_in_order();
// The fields in the run id's order (those with an id part).
std::vector<const Field*> id_fields_in_order();

// The settings a sweep lists several values of (--precisions fp64,fp16), with those values, in the table's
// order: the summary's rows and the figures' choice of runs.
std::vector<std::pair<const Field*, std::vector<FieldValue>>> listed_settings(const SweepGrid& grid);

// The settings every per-run CSV row carries after the axes' columns (run,placement,depth,d,lr,warmup,seed):
// the fields of the run id that are no axis (arch, heads, seq_len, ffn_mult, init, norm, activation,
// precision), in the id's order, each named by its key. All of them always, whatever the sweep lists: a run's
// rows are written to its folder, which a later sweep that lists other values may --resume, so they cannot
// depend on the grid; and one header per file lets sweeps be read side by side.
std::vector<const Field*> setting_columns();
// ",arch,heads,...": the header's part for them.
std::string setting_columns_header();
// A run's value in a setting column: the field's text, or "" for a transformer-only field of an FFN run
// (heads and seq_len mean nothing there; the run id leaves them out too).
std::string setting_column_text(const Field& field, const RunConfig& config);

// Whether the run id (and the init seed) mention the field for this run.
bool shown_in_id(const Field& field, const RunConfig& config);

// "a, b, c": a choice field's names, for messages.
std::string choice_list(const Field& field);

// The names of an enum's values, in order (the choice column of its row); parse_choice<E>("xavier").
template <class E>
const std::vector<std::string>& choice_names();
template <class E>
E parse_choice(const std::string& name);  // throws Error listing the names

}  // namespace tapegrad::lab
