#include "quell/adapters/config/config_names.h"

#include <cctype>

namespace quell::config {

bool IsConfigName(const std::string& name) {
  if (name.empty() || name.size() > 100) return false;
  for (const char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') {
      return false;
    }
  }
  return true;
}

bool IsSeverity(const std::string& severity) {
  return severity == "critical" || severity == "error" || severity == "warning" ||
         severity == "info";
}

}  // namespace quell::config
