#include "quell/cli/command_suggestion.h"

#include <string_view>
#include <vector>

#include "quell/core/text/closest_name.h"

namespace quell::cli {

std::optional<std::string> UnknownCommandLine(const CLI::App& app, int argc,
                                              const char* const* argv) {
  const CLI::App* at = &app;
  std::string path = app.get_name();
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    // Above the last command only --help and --version are flags, and neither takes a value.
    if (word.starts_with("-")) continue;
    const std::vector<const CLI::App*> commands =
        at->get_subcommands(std::function<bool(const CLI::App*)>());
    if (commands.empty()) return std::nullopt;  // the rest are this command's arguments
    std::vector<std::string> names;
    const CLI::App* next = nullptr;
    for (const CLI::App* command : commands) {
      names.push_back(command->get_name());
      if (command->get_name() == word) next = command;
    }
    if (next != nullptr) {
      at = next;
      path += " " + next->get_name();
      continue;
    }
    std::string line = path + ": unknown command \"" + std::string(word) + "\"";
    if (auto guess = core::ClosestName(word, names))
      return line + "; did you mean \"" + *guess + "\"?";
    line += "; the commands are:";
    for (size_t n = 0; n < names.size(); ++n) line += (n == 0 ? " " : ", ") + names[n];
    return line;
  }
  return std::nullopt;
}

}  // namespace quell::cli
