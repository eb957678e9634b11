#include "quell/adapters/templates/mustache_renderer.h"

#include <optional>

#include "quell/adapters/jsonl/message_codec.h"
#include "quell/adapters/templates/default_templates.h"
#include "quell/adapters/templates/group_message.h"
#include "quell/adapters/templates/incident_template_data.h"
#include "quell/adapters/templates/mstch_render.h"
#include "quell/adapters/templates/template_check.h"
#include "quell/core/delivery/message_limits.h"

namespace quell::templates {
namespace {

using core::ErrorCode;
using core::MakeError;

std::optional<TemplatePair> TemplatesFor(const RendererOptions& options,
                                         std::string_view channel_type,
                                         std::string_view channel_name) {
  std::optional<TemplatePair> pair = DefaultTemplates(channel_type);
  if (!pair) return std::nullopt;
  if (const auto it = options.channels.find(channel_name); it != options.channels.end()) {
    if (!it->second.subject.empty()) pair->subject = it->second.subject;
    if (!it->second.body.empty()) pair->body = it->second.body;
  }
  return pair;
}

// A group's Slack body is cut by the channel, into one section block per 3000 characters.
void ApplyLimits(std::string_view channel_type, size_t sms_segments, bool group,
                 core::RenderedMessage& m) {
  if (channel_type == "email") {
    m.subject = core::CutToChars(core::OneLine(m.subject), core::kEmailSubjectMaxChars);
  } else if (channel_type == "slack") {
    m.subject = core::CutToChars(core::OneLine(m.subject), core::kSlackTextMaxChars);
    if (!group) m.body = core::CutToChars(m.body, core::kSlackTextMaxChars);
  } else if (channel_type == "pagerduty") {
    m.subject = core::CutToChars(core::OneLine(m.subject), core::kPagerDutySummaryMaxChars);
  } else if (channel_type == "opsgenie") {
    m.subject = core::CutToChars(core::OneLine(m.subject), core::kOpsgenieMessageMaxChars);
    m.body = core::CutToChars(m.body, core::kOpsgenieDescriptionMaxChars);
  } else if (channel_type == "google_chat" || channel_type == "ntfy" ||
             channel_type == "telegram") {
    // A title (ntfy) or a first line (Chat, Telegram); each channel cuts the text to its limit.
    m.subject = core::CutToChars(core::OneLine(m.subject), 250);
  } else if (channel_type == "sms") {
    m.subject = core::OneLine(m.subject);
    m.body = core::FitSms(m.body, sms_segments);
  }
}

}  // namespace

MustacheRenderer::CompiledPair MustacheRenderer::CompiledPair::Of(TemplatePair pair) {
  CompiledPair compiled;
  compiled.subject = MustacheTemplate::Compile(pair.subject, IncidentContextNames());
  compiled.body = MustacheTemplate::Compile(pair.body, IncidentContextNames());
  compiled.text = std::move(pair);
  return compiled;
}

MustacheRenderer::MustacheRenderer(RendererOptions options) : options_(std::move(options)) {
  // Parsed once here, not per message: a row's render is then a walk over the parts.
  for (const char* type : {"webhook", "slack", "email", "sms", "pagerduty", "opsgenie",
                           "google_chat", "ntfy", "telegram", "teams", "discord", "mattermost"}) {
    if (std::optional<TemplatePair> pair = TemplatesFor(options_, type, "")) {
      defaults_.emplace(type, CompiledPair::Of(std::move(*pair)));
    }
  }
  for (const auto& [name, templates] : options_.channels) {
    if (std::optional<TemplatePair> pair = TemplatesFor(options_, templates.type, name)) {
      configured_.emplace(name, CompiledPair::Of(std::move(*pair)));
    }
  }
}

const MustacheRenderer::CompiledPair* MustacheRenderer::TemplatesOf(
    std::string_view channel_type, std::string_view channel_name,
    std::optional<CompiledPair>& scratch) const {
  const auto configured = options_.channels.find(channel_name);
  if (configured == options_.channels.end()) {
    const auto it = defaults_.find(channel_type);
    return it == defaults_.end() ? nullptr : &it->second;
  }
  if (configured->second.type == channel_type) {
    const auto it = configured_.find(channel_name);
    if (it != configured_.end()) return &it->second;
  }
  // A channel rendered as another type than configured: rare enough to compile per message.
  std::optional<TemplatePair> pair = TemplatesFor(options_, channel_type, channel_name);
  if (!pair) return nullptr;
  scratch = CompiledPair::Of(std::move(*pair));
  return &*scratch;
}

core::Result<core::RenderedMessage> MustacheRenderer::Render(std::string_view channel_type,
                                                             const core::OutboxRow& row) const {
  core::Result<core::Message> message = Decode(row);
  if (!message) return message.error();
  return RenderWith(channel_type, row, *message, std::nullopt);
}

core::Result<core::RenderedMessage> MustacheRenderer::RenderAt(std::string_view channel_type,
                                                               const core::OutboxRow& row,
                                                               core::WallTime sent_at) const {
  core::Result<core::Message> message = Decode(row);
  if (!message) return message.error();
  return RenderWith(channel_type, row, *message, sent_at);
}

core::Result<core::Message> MustacheRenderer::Decode(const core::OutboxRow& row) const {
  return jsonl::DecodeMessage(row);
}

core::Result<core::RenderedMessage> MustacheRenderer::RenderMessage(std::string_view channel_type,
                                                                    const core::OutboxRow& row,
                                                                    const core::Message& message,
                                                                    core::WallTime sent_at) const {
  return RenderWith(channel_type, row, message, sent_at);
}

core::Result<core::RenderedMessage> MustacheRenderer::RenderWith(
    std::string_view channel_type, const core::OutboxRow& row, const core::Message& message,
    std::optional<core::WallTime> sent_at) const {
  std::optional<CompiledPair> scratch;
  const CompiledPair* pair = TemplatesOf(channel_type, row.channel, scratch);
  if (pair == nullptr) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "no templates for channel type \"" + std::string(channel_type) + "\"");
  }
  if (message.kind == core::Message::Kind::kGroup) {
    const auto limit = options_.group_limits.find(row.channel);
    const GroupView group = GroupViewOf(
        message.group, options_.view,
        limit != options_.group_limits.end() ? limit->second : DefaultGroupLimit(channel_type),
        sent_at);
    core::RenderedMessage rendered = RenderGroup(channel_type, group, options_.view);
    ApplyLimits(channel_type, options_.sms_max_segments, /*group=*/true, rendered);
    return rendered;
  }
  if (message.kind != core::Message::Kind::kIncident) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "the outbox payload is not an incident snapshot (no string \"key\")");
  }
  const IncidentView view = IncidentViewOf(message.incident, options_.view, sent_at);
  const bool slack = channel_type == "slack";
  const IncidentTemplateData data(view, slack);
  const auto render = [&](const std::optional<MustacheTemplate>& compiled, const std::string& text,
                          const char* which) -> core::Result<std::string> {
    if (!compiled) return RenderWithMstch(text, view, slack, which);
    std::string out;
    out.reserve(text.size() + 256);
    compiled->RenderTo(data, out);
    return out;
  };
  core::Result<std::string> subject = render(pair->subject, pair->text.subject, "subject");
  if (!subject) return subject.error();
  core::Result<std::string> body = render(pair->body, pair->text.body, "body");
  if (!body) return body.error();
  core::RenderedMessage rendered{std::move(*subject), std::move(*body), view.severity};
  if (!view.runbook_url.empty()) rendered.links.push_back({view.runbook_url, "Runbook"});
  if (!view.source_url.empty()) rendered.links.push_back({view.source_url, "Source"});
  ApplyLimits(channel_type, options_.sms_max_segments, /*group=*/false, rendered);
  return rendered;
}

std::string SamplePayload(std::string_view transition) {
  if (transition == "pushed") {
    return R"({"key":"acme:DiskFull","condition":"prom-alerts","generation":1,"version":1,)"
           R"("transition":"open","status":"open","opened_at":"2026-12-02T09:00:00Z",)"
           R"("first_seen_at":"2026-12-02T08:55:00Z","last_seen_at":"2026-12-02T09:00:00Z",)"
           R"("event_count":1,"labels":{"alertname":"DiskFull","severity":"critical",)"
           R"("tenant":"acme"},"evidence":[{"annotations":{"description":"/var is 97% full",)"
           R"("runbook_url":"https://runbooks.example.com/disk-full","summary":"Disk full"},)"
           R"("startsAt":"2026-12-02T08:55:00Z","status":"firing"}]})";
  }
  if (transition == "held_open") {
    std::string payload = SamplePayload("open");
    payload.pop_back();
    payload.append(R"(,"held_behind":"acme:provider-down","announced_at":"2026-12-02T09:42:00Z",)"
                   R"("open_for_seconds":2520})");
    return payload;
  }
  if (transition == "late_open") {
    std::string payload = SamplePayload("open");
    payload.pop_back();
    payload.append(R"(,"opened_in_shadow":true,"announced_at":"2026-12-02T11:13:00Z",)"
                   R"("open_for_seconds":7980})");
    return payload;
  }
  const bool resolved = transition == "resolve";
  std::string payload =
      R"({"key":"checkout/TypeError: cannot read properties of undefined","condition":"new_errors",)"
      R"("generation":2,"version":5,"transition":")";
  payload.append(transition);
  payload.append(resolved ? R"(","status":"resolved")" : R"(","status":"open")");
  payload.append(R"(,"opened_at":"2026-12-02T09:00:00Z","first_seen_at":"2026-12-02T08:58:10Z",)"
                 R"("last_seen_at":"2026-12-02T09:14:30Z")");
  if (resolved) payload.append(R"(,"resolved_at":"2026-12-02T09:30:00Z")");
  payload.append(
      R"(,"event_count":42,"evidence":[{"title":"TypeError: cannot read properties of undefined",)"
      R"("level":"error","message":"user [email] at /cart"},{"title":"TypeError <in> & out",)"
      R"("level":"error"}]})");
  return payload;
}

std::vector<std::string> TemplateProblems(const RendererOptions& options) {
  MustacheRenderer renderer(options);
  std::vector<std::string> problems;
  const auto check = [&](const std::string& channel, bool configured, const std::string& type) {
    const std::string named =
        channel.empty() ? "default " + type + " templates" : "channel \"" + channel + "\"";
    const std::optional<TemplatePair> pair = TemplatesFor(options, type, channel);
    if (!pair) {
      problems.push_back(named + ": unknown channel type \"" + type +
                         "\" (webhook, slack, email, sms, pagerduty, opsgenie, google_chat, "
                         "ntfy, telegram, teams, discord or mattermost)");
      return;
    }
    // A configured template's problem is said at its line in the config; a default's by name.
    const auto where = [&](const char* which) {
      const auto it = options.template_where.find(channel + "." + which);
      if (configured && it != options.template_where.end()) return it->second + ": " + named;
      return named + " " + which + " template";
    };
    bool syntax_ok = true;
    for (const auto& [which, text] :
         {std::pair{"subject", &pair->subject}, std::pair{"body", &pair->body}}) {
      if (core::Status ok = CheckTemplateSyntax(*text); !ok) {
        problems.push_back(where(which) + ": " + ok.error().message);
        syntax_ok = false;
      }
    }
    if (!syntax_ok) return;
    for (const char* transition : {"open", "renotify", "resolve", "late_open", "pushed"}) {
      core::OutboxRow row;
      row.channel = channel;
      row.payload = SamplePayload(transition);
      core::Result<core::RenderedMessage> rendered = renderer.Render(type, row);
      if (!rendered) {
        problems.push_back(named + ": " + rendered.error().message);
        return;
      }
      if (rendered->body.empty() && rendered->subject.empty()) {
        problems.push_back(named + ": renders an empty message for a " + transition);
        return;
      }
    }
  };
  for (const char* type : {"webhook", "slack", "email", "sms", "pagerduty", "opsgenie",
                           "google_chat", "ntfy", "telegram"}) {
    check("", false, type);
  }
  for (const char* type : {"teams", "discord", "mattermost"}) check("", false, type);
  for (const auto& [name, templates] : options.channels) check(name, true, templates.type);
  return problems;
}

core::Status CheckTemplates(const RendererOptions& options) {
  const std::vector<std::string> problems = TemplateProblems(options);
  if (problems.empty()) return {};
  return MakeError(ErrorCode::kInvalidArgument, problems.front());
}

}  // namespace quell::templates
