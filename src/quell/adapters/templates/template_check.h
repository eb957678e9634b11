#pragma once

#include <string_view>

#include "quell/core/result.h"

namespace quell::templates {

// Checks one template's tags without rendering it: every section closes in order, every name
// is a template name (IncidentContextNames, or "." inside a list), no partials ({{>x}}) and no
// delimiter changes ({{=...=}}), which the renderer does not support. kInvalidArgument says which
// tag and at which line.
core::Status CheckTemplateSyntax(std::string_view text);

}  // namespace quell::templates
