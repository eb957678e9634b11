#pragma once

#include <string>

#include "quell/adapters/templates/incident_view.h"
#include "quell/core/result.h"

namespace quell::templates {

// `text` rendered by mstch itself over the view's context (Slack's escaping where `slack`),
// without HTML escaping. MustacheRenderer's way for a template MustacheTemplate does not
// compile, and the reference its compiled templates are tested against. kInvalidArgument:
// "<which> template cannot be rendered: ..." when mstch throws.
core::Result<std::string> RenderWithMstch(const std::string& text, const IncidentView& view,
                                          bool slack, const char* which);

}  // namespace quell::templates
