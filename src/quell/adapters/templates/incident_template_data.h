#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "quell/adapters/templates/incident_view.h"
#include "quell/adapters/templates/mustache_template.h"

namespace quell::templates {

// The one list of names a template may use (CheckTemplateSyntax's and the compiled templates'):
// the view's fields and the helpers made from them (is_open, severity_upper, transition_label,
// has_examples, has_changes ...), then the item names of the "examples" list ("text", "json") and
// the "labels" list ("name", "value"). The mstch context (mstch_render.cc) states the same names,
// and tests hold the two to the same output.
const std::vector<std::string_view>& IncidentContextNames();

// An incident's view as a compiled template reads it: the same values, escapes (Slack's, for
// the fields that take it) and truthiness as the mstch context of the same view, without
// copying the view. Holds the few values the view states only in other words (the upper-case
// severity, the numbers as text); `view` must outlive it.
class IncidentTemplateData : public TemplateData {
 public:
  IncidentTemplateData(const IncidentView& view, bool slack);

  TemplateValue Root(size_t id) const override;
  TemplateValue Item(size_t list, size_t index, size_t id) const override;
  void AppendEscaped(std::string& out, std::string_view text) const override;

 private:
  TemplateValue Text(std::string_view text) const;  // escaped for Slack where the channel is

  const IncidentView& view_;
  bool slack_;
  std::string severity_upper_;
  std::string generation_;
  std::string version_;
  std::string event_count_;
  std::string polls_;
};

}  // namespace quell::templates
