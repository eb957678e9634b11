#include "quell/adapters/templates/group_message.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "quell/adapters/jsonl/message_codec.h"
#include "quell/adapters/templates/slack_text.h"
#include "quell/core/delivery/message_limits.h"
#include "quell/core/text/url.h"

namespace quell::templates {
namespace {

uint64_t Count(const core::GroupSnapshot& g, std::string_view name) {
  for (const auto& [n, count] : g.counts) {
    if (n == name) return count;
  }
  return 0;
}

int Rank(std::string_view severity) {
  static constexpr std::array<std::string_view, 5> kOrder = {"info", "warning", "error", "critical",
                                                             "fatal"};
  const auto it = std::find(kOrder.begin(), kOrder.end(), severity);
  return it == kOrder.end() ? 2 : static_cast<int>(it - kOrder.begin());
}

std::string Escape(std::string_view text, bool slack) {
  return slack ? SlackEscape(text) : std::string(text);
}

std::string Upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

const char* MemberLabel(std::string_view transition) {
  if (transition == "open") return "opened";
  if (transition == "renotify") return "still failing";
  if (transition == "resolve") return "resolved";
  return "changed";
}

// "3 opened, 1 still failing, 2 resolved; 2 still open" (or "; all resolved"); with the
// store's standing at send time, "2 resolved; 1 still open, 30 silenced" or "; 30 silenced".
std::string CountsText(const GroupView& group) {
  std::string text;
  const auto add = [&text](uint64_t n, const char* what) {
    if (n == 0) return;
    if (!text.empty()) text += ", ";
    text += std::to_string(n) + " " + what;
  };
  add(group.opened, "opened");
  add(group.renotified, "still failing");
  add(group.resolved, "resolved");
  if (text.empty()) text = std::to_string(group.members) + " changed";
  const uint64_t silenced = group.has_standing ? group.standing_silenced : 0;
  const uint64_t open = StillOpen(group) - silenced;
  if (open == 0 && silenced == 0) return text + "; all resolved";
  text += "; ";
  if (open > 0) text += std::to_string(open) + " still open";
  if (open > 0 && silenced > 0) text += ", ";
  if (silenced > 0) text += std::to_string(silenced) + " silenced";
  return text;
}

// What fails: the members' common description, else how many different ones there are.
// Members whose snapshots carry no title are described by their key; when they share a
// condition, that condition failing is what they have in common.
std::string Headline(const GroupView& group) {
  if (group.listed.empty()) return "no member listed";
  const IncidentView& front = group.listed.front();
  const std::string& first = front.what;
  const bool same = std::all_of(group.listed.begin(), group.listed.end(),
                                [&](const IncidentView& v) { return v.what == first; });
  if (same) return first;
  const bool untitled_alike =
      std::all_of(group.listed.begin(), group.listed.end(), [&](const IncidentView& v) {
        return v.condition == front.condition && v.what == v.condition + " failing for " + v.key;
      });
  if (untitled_alike) {
    return front.condition + " failing for " + std::to_string(group.members) +
           (group.members == 1 ? " key" : " keys");
  }
  return "several failures, e.g. " + first;
}

std::string Where(const GroupView& group) {
  std::string where;
  for (const auto& [name, value] : group.labels) {
    if (value.empty()) continue;
    if (!where.empty()) where += ", ";
    where += name;
    where += ' ';
    where += value;
  }
  return where.empty() ? "group " + group.key : where;
}

std::string Since(const GroupView& group) {
  std::string earliest;
  for (const IncidentView& v : group.listed) {
    if (!v.since.empty() && (earliest.empty() || v.since < earliest)) earliest = v.since;
  }
  return earliest;
}

std::string CommonPrefix(const GroupView& group) {
  if (group.listed.empty()) return {};
  std::string prefix = group.listed.front().key;
  for (const IncidentView& v : group.listed) {
    size_t n = 0;
    while (n < prefix.size() && n < v.key.size() && prefix[n] == v.key[n]) ++n;
    prefix.resize(n);
  }
  return prefix;
}

std::string NextStep(const GroupView& group, const ViewOptions& options) {
  if (StillOpen(group) == 0) return "none: every member recovered";
  if (group.has_standing && group.standing_open == 0) {
    return "none while their silence lasts: every member still open is silenced";
  }
  std::string step = "ack each key with `quell incidents ack KEY`";
  const std::string prefix = CommonPrefix(group);
  // A prefix holding `*` would glob wider than the group's keys.
  if (prefix.size() >= 3 && prefix.find('*') == std::string::npos && group.more == 0 &&
      group.listed.size() > 1) {
    step += ", or silence them all with `quell silence add '" + prefix +
            "*' --for 1h --reason 'on it'`";
  } else {
    step += ", or silence one with `quell silence add --key KEY --for 1h --reason 'on it'`";
  }
  if (!options.public_url.empty()) {
    step += " (HTTP: POST " + options.public_url + "/v1/incidents/KEY/ack)";
  }
  return step;
}

// The group's page in quell (docs/page.md): its members and its messages.
std::string Link(const GroupView& group, const ViewOptions& options) {
  if (options.public_url.empty()) return {};
  return options.public_url + "/groups/" + core::UrlEncode(group.channel) + "/" +
         core::UrlEncode(group.key);
}

std::vector<std::string> Examples(const GroupView& group, size_t max) {
  std::vector<std::string> out;
  for (const IncidentView& v : group.listed) {
    for (const IncidentView::Example& e : v.examples) {
      if (out.size() >= max) return out;
      if (std::find(out.begin(), out.end(), e.text) == out.end()) out.push_back(e.text);
    }
  }
  return out;
}

// One member on one line: what happened to it and what it is.
std::string MemberLine(const IncidentView& v, bool slack) {
  std::string line =
      slack ? "*" + std::string(MemberLabel(v.transition)) + "* `" + Escape(v.key, true) + "`: "
            : std::string(MemberLabel(v.transition)) + " " + v.key + ": ";
  line += Escape(v.what, slack);
  line += " (" + Escape(v.where, slack) + "); " + v.count_text;
  if (!v.since.empty()) line += "; since " + v.since;
  if (!v.changes.empty()) line += "; " + Escape(v.changes, slack);
  return core::CutToChars(core::OneLine(line), 400);
}

std::string MoreLine(const GroupView& group, bool gsm) {
  return (gsm ? "... and " : "\xE2\x80\xA6 and ") + std::to_string(group.more) + " more";
}

std::string Subject(const GroupView& group, const std::string& severity_word) {
  return "[" + severity_word + "] " + group.key + ": " + CountsText(group) + ": " + Headline(group);
}

std::string TextBody(const GroupView& group, const ViewOptions& options) {
  std::string body = "Group " + group.key + " on " + group.channel + ", message " +
                     std::to_string(group.sequence) + ".\n\n";
  body += "What:      " + Headline(group) + "\n";
  body += "Where:     " + Where(group) + "\n";
  body += "Changed:   " + CountsText(group) + " (" + std::to_string(group.members) +
          (group.members == 1 ? " member" : " members") + " in this message)\n";
  body += "Severity:  " + group.severity + "\n";
  if (const std::string since = Since(group); !since.empty()) body += "Since:     " + since + "\n";
  body += "\nMembers:\n";
  for (const IncidentView& v : group.listed) {
    body += "  - " + MemberLine(v, false) + "\n";
    // A member's own link only where the group has none (an episode older than episodes).
    if (group.ack_link.empty() && !v.ack_link.empty()) {
      body += "    ack in one click: " + v.ack_link + "\n";
    }
  }
  if (group.more > 0) body += "  " + MoreLine(group, false) + "\n";
  if (!group.ack_link.empty())
    body += "\nAck every open member in one click: " + group.ack_link + "\n";
  if (const auto examples = Examples(group, options.max_examples); !examples.empty()) {
    body += "\nRecent examples (redacted):\n";
    for (const std::string& e : examples) body += "  - " + e + "\n";
  }
  body += "\nNext step: " + NextStep(group, options) + "\n";
  if (const std::string link = Link(group, options); !link.empty())
    body += "Details:   " + link + "\n";
  return body;
}

std::string SlackBody(const GroupView& group, const ViewOptions& options) {
  std::string body = StillOpen(group) == 0 ? ":white_check_mark:" : ":rotating_light:";
  body += " *" + Escape(group.key, true) + "*: " + CountsText(group) + "\n";
  body += "*" + Escape(Headline(group), true) + "*\n";
  body += "*Where:* " + Escape(Where(group), true) + "   *Severity:* " + group.severity + "\n";
  for (const IncidentView& v : group.listed) {
    body += "\xE2\x80\xA2 " + MemberLine(v, true);
    if (group.ack_link.empty() && !v.ack_link.empty()) body += " <" + v.ack_link + "|ack>";
    body += "\n";
  }
  if (group.more > 0) body += "_" + MoreLine(group, false) + "_\n";
  if (!group.ack_link.empty()) body += "<" + group.ack_link + "|Ack every open member>\n";
  for (const std::string& e : Examples(group, options.max_examples)) {
    body += "> " + Escape(e, true) + "\n";
  }
  body += "*Next step:* " + Escape(NextStep(group, options), true);
  if (const std::string link = Link(group, options); !link.empty()) {
    body += "\n<" + link + "|Open in quell>";
  }
  return body;
}

std::string SmsBody(const GroupView& group, const std::string& severity_word) {
  std::string body = Upper(severity_word) + " " + group.key + ": " + CountsText(group) + ": " +
                     Headline(group) + ". ";
  for (size_t i = 0; i < group.listed.size(); ++i) {
    body += (i > 0 ? ", " : "") + std::string(MemberLabel(group.listed[i].transition)) + " " +
            group.listed[i].key;
  }
  if (group.more > 0) body += " " + MoreLine(group, true);
  if (StillOpen(group) > 0) body += ". Ack: quell incidents ack KEY";
  return body;
}

std::string PagerDutySummary(const GroupView& group, const std::string& severity_word) {
  std::string summary = Subject(group, severity_word) + " - ";
  for (size_t i = 0; i < group.listed.size(); ++i) {
    summary += (i > 0 ? ", " : "") + group.listed[i].key;
  }
  if (group.more > 0) summary += " " + MoreLine(group, false);
  return summary;
}

}  // namespace

uint64_t StillOpen(const GroupView& group) {
  return group.has_standing ? group.standing_open + group.standing_silenced : group.open_after;
}

bool IsGroupPayload(std::string_view payload) {
  const size_t first = payload.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || payload[first] != '{') return false;
  const size_t name = payload.find_first_not_of(" \t\r\n", first + 1);
  return name != std::string_view::npos && payload.substr(name, 7) == "\"group\"";
}

size_t DefaultGroupLimit(std::string_view channel_type) {
  if (channel_type == "sms") return 3;
  if (channel_type == "pagerduty") return 5;
  if (channel_type == "slack") return 20;
  if (channel_type == "email") return 50;
  if (channel_type == "opsgenie") return 20;     // an alert's description, read in Opsgenie's UI
  if (channel_type == "ntfy") return 5;          // a phone notification of 4,096 bytes
  if (channel_type == "telegram") return 10;     // 4,096 characters
  if (channel_type == "google_chat") return 20;  // read in a thread, like Slack
  // A Teams card stays under 28 KB, a Discord embed's description under 4096 characters (a
  // member's line is up to 400); Mattermost posts take 16383.
  if (channel_type == "teams") return 20;
  if (channel_type == "discord") return 10;
  if (channel_type == "mattermost") return 50;
  return 1000;  // webhook: a program reads it, and the config allows no more
}

core::Result<GroupView> ParseGroupView(std::string_view payload, const ViewOptions& options,
                                       size_t limit, std::optional<core::WallTime> sent_at) {
  core::Result<core::GroupSnapshot> group = jsonl::DecodeGroup(payload);
  if (!group) return group.error();
  return GroupViewOf(*group, options, limit, sent_at);
}

GroupView GroupViewOf(const core::GroupSnapshot& g, const ViewOptions& options, size_t limit,
                      std::optional<core::WallTime> sent_at) {
  GroupView group;
  group.key = g.key;
  group.channel = g.channel;
  group.sequence = g.sequence.value_or(0);
  group.open_after = g.open_after.value_or(0);
  if (g.standing) {
    group.has_standing = true;
    group.standing_open = g.standing->open;
    group.standing_silenced = g.standing->silenced;
  }
  group.episode = g.episode.value_or(0);
  group.labels = g.labels;
  const bool has_members_count = std::any_of(g.counts.begin(), g.counts.end(),
                                             [](const auto& c) { return c.first == "members"; });
  group.members = has_members_count ? Count(g, "members") : g.members.size();
  group.opened = Count(g, "open");
  group.renotified = Count(g, "renotify");
  group.resolved = Count(g, "resolve");
  int gravest = -1;
  std::string newest;  // the newest member's transition time
  for (const core::IncidentSnapshot& member : g.members) {
    IncidentView view = IncidentViewOf(member, options, sent_at);
    if (view.transition != "resolve" && Rank(view.severity) > gravest) {
      gravest = Rank(view.severity);
      group.severity = view.severity;
    }
    if (view.polled_at > newest) newest = view.polled_at;  // RFC 3339 UTC: text order is time
    if (group.listed.size() < limit) group.listed.push_back(std::move(view));
  }
  const auto issued = core::ParseRfc3339(newest);
  if (StillOpen(group) == 0) {
    // Every member recovered: nothing is left to ack, by the group's link or a member's own.
    for (IncidentView& view : group.listed) view.ack_link.clear();
  } else if (options.group_ack_link && group.episode != 0 && issued) {
    group.ack_link = options.group_ack_link(group.channel, group.key, group.episode, *issued);
  }
  if (group.severity.empty()) {
    group.severity = group.listed.empty() ? options.default_severity : group.listed[0].severity;
  }
  group.more = group.members > group.listed.size() ? group.members - group.listed.size() : 0;
  return group;
}

core::RenderedMessage RenderGroup(std::string_view channel_type, const GroupView& group,
                                  const ViewOptions& options) {
  // A group that is all resolved says so where the severity stands; the message's severity
  // stays the gravest member's, as a single resolve keeps its level.
  const std::string word = StillOpen(group) == 0 ? "resolved" : group.severity;
  core::RenderedMessage message{Subject(group, word), {}, group.severity};
  if (channel_type == "slack") {
    message.body = SlackBody(group, options);
  } else if (channel_type == "sms") {
    message.body = SmsBody(group, word);
  } else if (channel_type == "pagerduty") {
    message.subject = PagerDutySummary(group, word);
    message.body = TextBody(group, options);
  } else {
    message.body = TextBody(group, options);
  }
  return message;
}

}  // namespace quell::templates
