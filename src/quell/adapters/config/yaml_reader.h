#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "quell/adapters/config/env_expand.h"
#include "quell/core/conditions/error_group.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::config {

// Shared by every reader of one file: where messages point, how ${VAR} expands, the first
// error (what LoadConfig reports) and every error in file order (what `config check` lists).
struct YamlContext {
  std::string file;
  EnvLookup env;
  std::optional<core::Error> error;
  std::vector<std::string> errors;  // "file:line:column: path: what", each

  void Fail(const YAML::Mark& mark, const std::string& path, const std::string& what);
};

// A strict reader of one YAML mapping: typed getters that leave the target untouched when the
// key is absent, and Finish() rejecting keys nobody asked for, so a typo ("cooldwn") is an
// error at its line instead of a silently ignored setting.
class MapReader {
 public:
  MapReader(YamlContext& context, const YAML::Node& node, std::string path);

  // Whether `key` is present; it is a setting, listed as known after a typo even when absent.
  bool Has(std::string_view key) const;
  // Whether a refused key (an inline secret) is present, without listing it as known.
  bool HasRefused(std::string_view key) const;
  void Read(std::string_view key, std::string& out);
  void Read(std::string_view key, core::Duration& out);
  void Read(std::string_view key, std::optional<core::Duration>& out);
  void Read(std::string_view key, uint32_t& out, uint32_t min, uint32_t max);
  void Read(std::string_view key, double& out);
  void Read(std::string_view key, std::optional<double>& out);
  void Read(std::string_view key, bool& out);
  // A string, or a list of strings.
  void Read(std::string_view key, std::vector<std::string>& out);
  // A list of non-empty, distinct strings, in its order (a single value is refused).
  void ReadNameList(std::string_view key, std::vector<std::string>& out);
  // A mapping of strings to strings, returned sorted by name.
  void Read(std::string_view key, core::Labels& out);

  // The nested mapping under `key`; an absent key reads as an empty mapping.
  MapReader Child(std::string_view key);
  // Each mapping of the sequence under `key`.
  std::vector<MapReader> Items(std::string_view key);

  // Reports `what` at `key` (or at the mapping itself when `key` is empty).
  void Fail(std::string_view key, const std::string& what);
  // "file:line:column: path.key" for `key` (the mapping itself when empty): for problems that
  // only some commands care about, reported later instead of failing the whole file.
  std::string Locate(std::string_view key) const;
  // Reports the first key that no getter read.
  void Finish();

  const std::string& path() const { return path_; }
  YamlContext& context() { return context_; }

 private:
  void FailOnDuplicateKeys();
  std::optional<YAML::Node> Take(std::string_view key);
  std::optional<std::string> Scalar(std::string_view key, const YAML::Node& node);
  std::string KeyPath(std::string_view key) const;
  YAML::Mark MarkOf(std::string_view key) const;

  YamlContext& context_;
  YAML::Node node_;
  std::string path_;
  std::set<std::string, std::less<>> read_;
  // Keys only asked about (Has): known, so listed after a typo, but not read, so still refused.
  mutable std::set<std::string, std::less<>> asked_;
};

}  // namespace quell::config
