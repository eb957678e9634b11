#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "quell/adapters/templates/default_templates.h"
#include "quell/adapters/templates/incident_view.h"
#include "quell/adapters/templates/mustache_template.h"
#include "quell/core/ports/channel.h"

namespace quell::templates {

// One configured channel's templates; an empty string keeps the type's default.
struct ChannelTemplates {
  std::string type;  // "webhook", "slack", "email", "sms", "pagerduty" or "opsgenie"
  std::string subject;
  std::string body;
};

struct RendererOptions {
  ViewOptions view;
  size_t sms_max_segments = 2;
  std::map<std::string, ChannelTemplates, std::less<>> channels;  // by channel name
  // Members a group message lists before "… and N more", by channel name; a channel without
  // one lists DefaultGroupLimit of its type.
  std::map<std::string, size_t, std::less<>> group_limits;
  // Where a configured template is written, by "channel.part" ("ops.body" ->
  // "quell.yaml:14:9: channels[1].templates.body"), to start its error messages with.
  std::map<std::string, std::string, std::less<>> template_where;
};

// core::MessageRenderer on mustache templates. Each channel's templates are compiled once, at
// construction (MustacheTemplate, which writes what mstch writes); a template it cannot take is
// rendered by Debian's mstch per message instead. Values are never HTML-escaped
// (mstch's default is turned off process-wide: no channel here is HTML); Slack's values get
// Slack's own escaping of &, < and > instead. Limits applied after rendering: e-mail subject
// one line of at most 200 characters, Slack text 3000, PagerDuty summary one line of 1024, SMS
// body at most sms_max_segments segments. Thread-safe.
class MustacheRenderer : public core::MessageRenderer {
 public:
  explicit MustacheRenderer(RendererOptions options);

  // Templates are picked by row.channel's override, else by `channel_type`'s defaults. A group
  // message (a group key, or IsGroupPayload) is rendered by RenderGroup, whatever the templates.
  // kInvalidArgument: an unknown type, a payload that is not a snapshot, a template mstch
  // rejects.
  core::Result<core::RenderedMessage> Render(std::string_view channel_type,
                                             const core::OutboxRow& row) const override;
  // As Render, with the time phrases counted to `sent_at` (ParseIncidentView).
  core::Result<core::RenderedMessage> RenderAt(std::string_view channel_type,
                                               const core::OutboxRow& row,
                                               core::WallTime sent_at) const override;
  // The payload read once (jsonl::DecodeMessage), then rendered from that.
  core::Result<core::Message> Decode(const core::OutboxRow& row) const override;
  core::Result<core::RenderedMessage> RenderMessage(std::string_view channel_type,
                                                    const core::OutboxRow& row,
                                                    const core::Message& message,
                                                    core::WallTime sent_at) const override;

 private:
  core::Result<core::RenderedMessage> RenderWith(std::string_view channel_type,
                                                 const core::OutboxRow& row,
                                                 const core::Message& message,
                                                 std::optional<core::WallTime> sent_at) const;

  // A channel's templates, compiled; nullopt where mstch renders the text.
  struct CompiledPair {
    TemplatePair text;
    std::optional<MustacheTemplate> subject;
    std::optional<MustacheTemplate> body;
    static CompiledPair Of(TemplatePair pair);
  };
  // The templates of `channel_name` rendered as `channel_type`; `scratch` holds them when they
  // had to be compiled for this call. nullptr for an unknown type.
  const CompiledPair* TemplatesOf(std::string_view channel_type, std::string_view channel_name,
                                  std::optional<CompiledPair>& scratch) const;

  RendererOptions options_;
  std::map<std::string, CompiledPair, std::less<>> defaults_;    // by channel type
  std::map<std::string, CompiledPair, std::less<>> configured_;  // by channel name
};

// Checks every configured channel's templates (CheckTemplateSyntax) and renders them, and each
// type's defaults, against a sample payload for every transition, so a configuration error
// stops quell at start: "channel \"ops-sms\" body template: line 1: unknown field \"keyy\"".
core::Status CheckTemplates(const RendererOptions& options);

// Every problem CheckTemplates would stop at, each its own message, in channel order.
std::vector<std::string> TemplateProblems(const RendererOptions& options);

// A snapshot payload like the store writes, with two evidence objects; for checks and tests.
// `transition` is "open", "renotify", "resolve", "late_open" (an open announced on leaving
// shadow mode, open for 2h 13m), or "pushed" (the open of an Alertmanager alert).
std::string SamplePayload(std::string_view transition);

}  // namespace quell::templates
