#include "quell/adapters/infrai/group_parser.h"

#include <string>

#include "quell/adapters/infrai/json_fields.h"

namespace quell::infrai {
namespace {

std::string Tried(std::span<const std::string> names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

core::Error Corrupt(std::string_view where, const std::string& what) {
  return core::MakeError(core::ErrorCode::kCorrupt, std::string(where) + ": " + what);
}

// Infrai's status vocabulary is undocumented; these are the words trackers use. Anything else
// fails loudly rather than guessing which side of healthy it falls on.
std::optional<bool> ResolvedFromStatus(std::string_view status) {
  if (status == "unresolved" || status == "open" || status == "active" || status == "regressed" ||
      status == "ongoing") {
    return false;
  }
  if (status == "resolved" || status == "closed" || status == "ignored" || status == "muted" ||
      status == "archived") {
    return true;
  }
  return std::nullopt;
}

std::string TextOr(simdjson::dom::object object, std::span<const std::string> names) {
  const auto value = FindField(object, names);
  if (!value) return {};
  return AsText(*value).value_or(std::string());
}

}  // namespace

core::Status ParseGroup(simdjson::dom::object object, const InfraiFields& names,
                        std::span<const std::string> extra_fields, std::string_view where,
                        core::ErrorGroup& out) {
  out = core::ErrorGroup{};
  const auto id = FindField(object, names.id);
  if (!id) {
    return Corrupt(
        where, "no group id (tried " + Tried(names.id) + "); map the field in infrai.fields.id");
  }
  auto id_text = AsText(*id);
  if (!id_text || id_text->empty()) return Corrupt(where, "the group id is not a string");
  out.id = std::move(*id_text);

  if (const auto status = FindField(object, names.status)) {
    std::string_view text;
    bool flag = false;
    if (!status->get_string().get(text)) {
      const auto resolved = ResolvedFromStatus(text);
      if (!resolved) {
        return Corrupt(where, "group " + out.id + ": unknown status \"" + std::string(text) + "\"");
      }
      out.resolved = *resolved;
    } else if (!status->get_bool().get(flag)) {
      out.resolved = flag;  // a renamed is_resolved
    } else {
      return Corrupt(where, "group " + out.id + ": status is not a string");
    }
  } else if (const auto resolved = FindField(object, names.resolved)) {
    if (resolved->get_bool().get(out.resolved)) {
      return Corrupt(where, "group " + out.id + ": " + Tried(names.resolved) + " is not a boolean");
    }
  } else {
    return Corrupt(where, "group " + out.id + ": no status (tried " + Tried(names.status) + ", " +
                              Tried(names.resolved) + "); map it in infrai.fields.status");
  }

  out.title = TextOr(object, names.title);
  out.message = TextOr(object, names.message);
  out.level = TextOr(object, names.level);
  if (const auto count = FindField(object, names.count)) {
    auto parsed = AsCount(*count);
    if (!parsed) return Corrupt(where, "group " + out.id + ": count: " + parsed.error().message);
    out.count = *parsed;
  }
  for (auto [field, target] : {std::pair{&names.first_seen, &out.first_seen},
                               std::pair{&names.last_seen, &out.last_seen}}) {
    if (const auto value = FindField(object, *field)) {
      auto at = AsTime(*value);
      if (!at) {
        return Corrupt(where,
                       "group " + out.id + ": " + field->front() + ": " + at.error().message);
      }
      *target = *at;
    }
  }
  if (const auto tags = FindField(object, names.tags)) {
    auto labels = AsLabels(*tags);
    if (!labels) return Corrupt(where, "group " + out.id + ": tags: " + labels.error().message);
    out.tags = std::move(*labels);
  }
  for (const std::string& name : extra_fields) {
    simdjson::dom::element value;
    if (object[name].get(value) || value.is_null()) continue;
    if (auto text = AsText(value)) out.fields.emplace_back(name, std::move(*text));
  }
  return {};
}

}  // namespace quell::infrai
