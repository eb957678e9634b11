#include "quell/adapters/infrai/field_drift.h"

#include <algorithm>

namespace quell::infrai {
namespace {

// The remote names a canonical field is read under and the infrai.fields entry that maps it;
// a field quell has no alias list for (one a key template names) is read under its own name.
struct Aliases {
  std::vector<std::string> names;
  std::string map_key;  // empty: not in the alias map
};

Aliases AliasesOf(const InfraiFields& fields, const std::string& field) {
  const std::pair<const char*, const std::vector<std::string>*> known[] = {
      {"title", &fields.title},
      {"message", &fields.message},
      {"level", &fields.level},
      {"count", &fields.count},
      {"first_seen", &fields.first_seen},
      {"last_seen", &fields.last_seen},
      {"tags", &fields.tags},
  };
  for (const auto& [name, names] : known) {
    if (field == name) return Aliases{*names, "infrai.fields." + field};
  }
  return Aliases{{field}, {}};
}

bool HasMember(simdjson::dom::object object, std::span<const std::string> names) {
  return std::any_of(names.begin(), names.end(), [&object](const std::string& name) {
    simdjson::dom::element value;
    return !object[name].get(value);
  });
}

std::string Join(std::span<const std::string> names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

std::vector<std::string> FieldsRead(std::span<const core::ErrorGroupCondition> conditions) {
  std::vector<std::string> fields;
  for (const core::ErrorGroupCondition& condition : conditions) {
    for (const std::string& field : condition.key.Fields()) {
      if (field == "error_group_id" || field == "id" || field == "status") continue;
      fields.push_back(field.starts_with("tags.") ? "tags" : field);
    }
    if (!condition.filter.levels.empty()) fields.emplace_back("level");
    if (!condition.filter.tags.empty()) fields.emplace_back("tags");
    if (condition.rule == core::UnhealthyRule::kNewEvents) fields.emplace_back("last_seen");
  }
  std::sort(fields.begin(), fields.end());
  fields.erase(std::unique(fields.begin(), fields.end()), fields.end());
  return fields;
}

core::Status CheckFieldDrift(simdjson::dom::array groups, const InfraiFields& names,
                             std::span<const std::string> fields_read, std::string_view what) {
  const size_t total = groups.size();
  if (total == 0) return {};
  for (const std::string& field : fields_read) {
    const Aliases aliases = AliasesOf(names, field);
    size_t missing = 0;
    for (const simdjson::dom::element item : groups) {
      simdjson::dom::object object;
      if (item.get_object().get(object) || !HasMember(object, aliases.names)) ++missing;
    }
    if (missing * 2 <= total) continue;
    std::string message = std::string(what) + ": field \"" + field + "\" is missing from " +
                          std::to_string(missing) + " of " + std::to_string(total) +
                          " groups (tried " + Join(aliases.names) + "); ";
    message +=
        aliases.map_key.empty()
            ? "a key template names it: did the source rename it?"
            : "if the source renamed it, map the new name in the alias map, " + aliases.map_key;
    message += "; open incidents are held until it is back";
    return core::MakeError(core::ErrorCode::kCorrupt, std::move(message));
  }
  return {};
}

}  // namespace quell::infrai
