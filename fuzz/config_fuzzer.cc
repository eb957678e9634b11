// quell.yaml (docs/operations.md, "Fuzzing"): the loader `quell run`, `quell config check` and a
// reload use, over the input as the file's text. Files it names resolve against a folder that
// does not exist; ${VAR} reads a fixed environment. Input: the YAML.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz_input.h"
#include "quell/adapters/config/config_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);  // NOLINT
  static const std::map<std::string, std::string, std::less<>> kEnv = {
      {"INFRAI_API_KEY", "ifr_pk_proj_fuzz"},
      {"QUELL_TOKEN", "a-token-for-the-fuzzer"},
      {"SLACK_SIGNING_SECRET", "8f742231b10e8888abcd99yyyzzz85a5"},
      {"EMPTY", ""}};
  const quell::config::EnvLookup env = [](std::string_view name) -> std::optional<std::string> {
    const auto it = kEnv.find(name);
    if (it == kEnv.end()) return std::nullopt;
    return it->second;
  };
  const std::string path = "/nonexistent-quell-fuzz/quell.yaml";
  auto loaded = quell::config::LoadConfigText(text, path, env);
  const quell::config::CheckedConfig checked =
      quell::config::ReadConfigTextForCheck(text, path, env);
  // `config check` lists no problem exactly when the loader takes the file.
  quell::fuzz::Require(loaded.ok() == checked.errors.empty(),
                       "LoadConfig and config check disagree");
  if (!loaded) {
    quell::fuzz::Require(loaded.error().code == quell::core::ErrorCode::kInvalidArgument,
                         "a refusal other than kInvalidArgument");
    // The key comes from the environment; a message may quote the file, never the key.
    quell::fuzz::Require(text.find("ifr_pk_proj_fuzz") != std::string_view::npos ||
                             loaded.error().message.find("ifr_pk_proj_fuzz") == std::string::npos,
                         "a message quotes the API key");
  }
  return 0;
}
