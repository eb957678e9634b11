#pragma once

#include <string>

namespace quell::config {

// A condition or channel name: 1 to 100 letters, digits, '-', '_' or '.'.
bool IsConfigName(const std::string& name);
// One of the message severities: critical, error, warning, info.
bool IsSeverity(const std::string& severity);

}  // namespace quell::config
