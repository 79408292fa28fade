#pragma once
// The table's fields in JSON (config.json, sweep.json): private to the lab's library, which alone uses nlohmann.

#include <nlohmann/json.hpp>

#include "tapegrad/lab/run_fields.hpp"

namespace tapegrad::lab {

// A JSON value as a value of the field, by the field's kind (not yet checked against its range); throws
// FieldError for the wrong type.
FieldValue field_value_from_json(const Field& field, const nlohmann::json& value);

// A value as JSON: counts and reals as numbers, choices as their names.
inline nlohmann::ordered_json json_of(const FieldValue& value) {
  return std::visit([](const auto& x) { return nlohmann::ordered_json(x); }, value);
}

}  // namespace tapegrad::lab
