#include "quell/adapters/config/yaml_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

namespace quell::config {
namespace {

std::string Where(const YamlContext& context, const YAML::Mark& mark) {
  std::string out = context.file;
  if (mark.line >= 0) {
    out += ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
  }
  return out;
}

}  // namespace

void YamlContext::Fail(const YAML::Mark& mark, const std::string& path, const std::string& what) {
  std::string message = Where(*this, mark) + ": " + (path.empty() ? "" : path + ": ") + what;
  if (!error) error = core::MakeError(core::ErrorCode::kInvalidArgument, message);
  errors.push_back(std::move(message));
}

MapReader::MapReader(YamlContext& context, const YAML::Node& node, std::string path)
    : context_(context), node_(node), path_(std::move(path)) {
  if (node_.IsDefined() && !node_.IsNull() && !node_.IsMap()) {
    context_.Fail(node_.Mark(), path_, "expected a mapping of settings");
    node_ = YAML::Node(YAML::NodeType::Map);
  }
  FailOnDuplicateKeys();
}

// yaml-cpp keeps both entries of a key written twice and a lookup finds the first, so
// `timeout: 5s` below an earlier `timeout: 30s` would be ignored without a word.
void MapReader::FailOnDuplicateKeys() {
  if (!node_.IsMap()) return;
  std::map<std::string, int, std::less<>> first_line;
  for (const auto& entry : node_) {
    if (!entry.first.IsScalar()) continue;
    const std::string& key = entry.first.Scalar();
    const auto [at, inserted] = first_line.emplace(key, entry.first.Mark().line + 1);
    if (!inserted) {
      context_.Fail(entry.first.Mark(), KeyPath(key),
                    "written twice (first at line " + std::to_string(at->second) + "); remove one");
    }
  }
}

std::string MapReader::KeyPath(std::string_view key) const {
  if (key.empty()) return path_;
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

bool MapReader::Has(std::string_view key) const {
  asked_.insert(std::string(key));
  return HasRefused(key);
}

bool MapReader::HasRefused(std::string_view key) const {
  return node_.IsMap() && node_[std::string(key)].IsDefined();
}

std::optional<YAML::Node> MapReader::Take(std::string_view key) {
  read_.insert(std::string(key));
  if (!node_.IsMap()) return std::nullopt;
  // Through a const reference: a non-const operator[] may add the key to the mapping.
  const YAML::Node& map = node_;
  YAML::Node value = map[std::string(key)];
  if (!value.IsDefined()) return std::nullopt;
  return value;
}

std::optional<std::string> MapReader::Scalar(std::string_view key, const YAML::Node& node) {
  if (!node.IsScalar()) {
    context_.Fail(node.Mark(), KeyPath(key), "expected a single value");
    return std::nullopt;
  }
  auto expanded = ExpandEnv(node.Scalar(), context_.env);
  if (!expanded) {
    context_.Fail(node.Mark(), KeyPath(key), expanded.error().message);
    return std::nullopt;
  }
  return std::move(*expanded);
}

void MapReader::Read(std::string_view key, std::string& out) {
  const auto node = Take(key);
  if (!node) return;
  if (auto text = Scalar(key, *node)) out = std::move(*text);
}

void MapReader::Read(std::string_view key, core::Duration& out) {
  std::optional<core::Duration> value;
  Read(key, value);
  if (value) out = *value;
}

void MapReader::Read(std::string_view key, std::optional<core::Duration>& out) {
  const auto node = Take(key);
  if (!node) return;
  const auto text = Scalar(key, *node);
  if (!text) return;
  auto parsed = core::ParseDuration(*text);
  if (!parsed) {
    context_.Fail(node->Mark(), KeyPath(key), parsed.error().message + " (write e.g. 90s, 10m)");
    return;
  }
  out = *parsed;
}

void MapReader::Read(std::string_view key, uint32_t& out, uint32_t min, uint32_t max) {
  const auto node = Take(key);
  if (!node) return;
  const auto text = Scalar(key, *node);
  if (!text) return;
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size() || value < min || value > max) {
    context_.Fail(node->Mark(), KeyPath(key),
                  "expected a whole number from " + std::to_string(min) + " to " +
                      std::to_string(max) + ", got \"" + *text + "\"");
    return;
  }
  out = static_cast<uint32_t>(value);
}

void MapReader::Read(std::string_view key, std::optional<double>& out) {
  const auto node = Take(key);
  if (!node) return;
  const auto text = Scalar(key, *node);
  if (!text) return;
  double value = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size() || !std::isfinite(value)) {
    context_.Fail(node->Mark(), KeyPath(key), "expected a number, got \"" + *text + "\"");
    return;
  }
  out = value;
}

void MapReader::Read(std::string_view key, double& out) {
  std::optional<double> value;
  Read(key, value);
  if (value) out = *value;
}

void MapReader::Read(std::string_view key, bool& out) {
  const auto node = Take(key);
  if (!node) return;
  const auto text = Scalar(key, *node);
  if (!text) return;
  if (*text == "true" || *text == "yes" || *text == "on") {
    out = true;
  } else if (*text == "false" || *text == "no" || *text == "off") {
    out = false;
  } else {
    context_.Fail(node->Mark(), KeyPath(key), "expected true or false, got \"" + *text + "\"");
  }
}

void MapReader::Read(std::string_view key, std::vector<std::string>& out) {
  const auto node = Take(key);
  if (!node) return;
  std::vector<std::string> values;
  if (node->IsSequence()) {
    for (const YAML::Node& item : *node) {
      auto text = Scalar(key, item);
      if (!text) return;
      values.push_back(std::move(*text));
    }
  } else if (auto text = Scalar(key, *node)) {
    values.push_back(std::move(*text));
  } else {
    return;
  }
  out = std::move(values);
}

void MapReader::ReadNameList(std::string_view key, std::vector<std::string>& out) {
  const auto node = Take(key);
  if (!node) return;
  if (!node->IsSequence() || node->size() == 0) {
    context_.Fail(node->Mark(), KeyPath(key), "expected a non-empty list of names, e.g. [a, b]");
    return;
  }
  std::vector<std::string> values;
  for (const YAML::Node& item : *node) {
    auto text = Scalar(key, item);
    if (!text) return;
    if (text->empty()) {
      context_.Fail(item.Mark(), KeyPath(key), "a name must not be empty");
      return;
    }
    if (std::find(values.begin(), values.end(), *text) != values.end()) {
      context_.Fail(item.Mark(), KeyPath(key), "\"" + *text + "\" is listed twice");
      return;
    }
    values.push_back(std::move(*text));
  }
  out = std::move(values);
}

void MapReader::Read(std::string_view key, core::Labels& out) {
  const auto node = Take(key);
  if (!node || node->IsNull()) return;
  if (!node->IsMap()) {
    context_.Fail(node->Mark(), KeyPath(key), "expected a mapping of names to values");
    return;
  }
  core::Labels labels;
  for (const auto& entry : *node) {
    auto value = Scalar(key, entry.second);
    if (!value) return;
    labels.emplace_back(entry.first.Scalar(), std::move(*value));
  }
  std::stable_sort(labels.begin(), labels.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 1; i < labels.size(); ++i) {
    if (labels[i].first == labels[i - 1].first) {
      context_.Fail(node->Mark(), KeyPath(key) + "." + labels[i].first, "written twice");
      return;
    }
  }
  std::sort(labels.begin(), labels.end());
  out = std::move(labels);
}

MapReader MapReader::Child(std::string_view key) {
  const auto node = Take(key);
  return MapReader(context_, node.value_or(YAML::Node(YAML::NodeType::Map)), KeyPath(key));
}

std::vector<MapReader> MapReader::Items(std::string_view key) {
  std::vector<MapReader> items;
  const auto node = Take(key);
  if (!node || node->IsNull()) return items;
  if (!node->IsSequence()) {
    context_.Fail(node->Mark(), KeyPath(key), "expected a list");
    return items;
  }
  size_t index = 0;
  for (const YAML::Node& item : *node) {
    items.emplace_back(context_, item, KeyPath(key) + "[" + std::to_string(index++) + "]");
    if (!item.IsMap()) context_.Fail(item.Mark(), items.back().path(), "expected a mapping");
  }
  return items;
}

YAML::Mark MapReader::MarkOf(std::string_view key) const {
  const YAML::Node& map = node_;
  if (!key.empty() && map.IsMap() && map[std::string(key)].IsDefined()) {
    return map[std::string(key)].Mark();
  }
  return map.Mark();
}

void MapReader::Fail(std::string_view key, const std::string& what) {
  context_.Fail(MarkOf(key), KeyPath(key), what);
}

std::string MapReader::Locate(std::string_view key) const {
  const std::string path = KeyPath(key);
  return Where(context_, MarkOf(key)) + (path.empty() ? "" : ": " + path);
}

void MapReader::Finish() {
  if (!node_.IsMap()) return;
  for (const auto& entry : node_) {
    const std::string& key = entry.first.Scalar();
    if (read_.contains(key)) continue;
    // A setting read only when present (group_by, flap) is known too: a typo of it should
    // list the name it meant.
    std::set<std::string, std::less<>> names = read_;
    names.insert(asked_.begin(), asked_.end());
    std::string known;
    for (const std::string& name : names) known += (known.empty() ? "" : ", ") + name;
    context_.Fail(entry.first.Mark(), KeyPath(key), "unknown setting (known here: " + known + ")");
  }
}

}  // namespace quell::config
