#include "quell/adapters/templates/mustache_template.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "quell/adapters/templates/default_templates.h"
#include "quell/adapters/templates/incident_template_data.h"
#include "quell/adapters/templates/mstch_render.h"
#include "quell/adapters/templates/mustache_renderer.h"
#include "quell/adapters/templates/template_check.h"
#include "test_paths.h"

namespace quell::templates {
namespace mustache_template_test {

ViewOptions Options() {
  ViewOptions options;
  options.public_url = "https://quell.example.com";
  options.ack_link = [](std::string_view key, uint64_t generation, core::WallTime) {
    return "https://quell.example.com/ack?k=" + std::string(key) +
           "&g=" + std::to_string(generation);
  };
  return options;
}

// Views with every kind of value set or empty: examples, labels, a pushed alert's annotations,
// a late and a held open, a resolve, text Slack escapes ("<in> & out").
std::vector<IncidentView> Views() {
  std::vector<IncidentView> views;
  for (const char* transition :
       {"open", "renotify", "resolve", "late_open", "held_open", "pushed"}) {
    auto view = ParseIncidentView(SamplePayload(transition), Options());
    EXPECT_TRUE(view.ok()) << transition;
    if (view) views.push_back(std::move(*view));
  }
  IncidentView bare;  // nothing set: every section empty, every list empty
  bare.key = "k";
  views.push_back(bare);
  return views;
}

std::string Compiled(const std::string& text, const IncidentView& view, bool slack) {
  const auto compiled = MustacheTemplate::Compile(text, IncidentContextNames());
  EXPECT_TRUE(compiled.has_value()) << text;
  if (!compiled) return {};
  std::string out;
  compiled->RenderTo(IncidentTemplateData(view, slack), out);
  return out;
}

std::string Mstch(const std::string& text, const IncidentView& view, bool slack) {
  auto out = RenderWithMstch(text, view, slack, "body");
  EXPECT_TRUE(out.ok()) << text;
  return out ? *out : std::string();
}

// The compiled templates are the hot path; mstch is the reference they must match exactly.
TEST(MustacheTemplateTest, EveryDefaultTemplateRendersWhatMstchRendersByteForByte) {
  const std::vector<IncidentView> views = Views();
  for (const char* type : {"webhook", "slack", "email", "sms", "pagerduty", "opsgenie",
                           "google_chat", "ntfy", "telegram", "teams", "discord", "mattermost"}) {
    const auto pair = DefaultTemplates(type);
    ASSERT_TRUE(pair.has_value()) << type;
    for (const IncidentView& view : views) {
      for (const bool slack : {false, true}) {
        for (const std::string* text : {&pair->subject, &pair->body}) {
          EXPECT_EQ(Compiled(*text, view, slack), Mstch(*text, view, slack))
              << type << ", " << view.transition << (slack ? ", slack" : "");
        }
      }
    }
  }
}

// The corners of mstch's reading: standalone lines (blank text and line end dropped, also
// indented and at the template's end, not when a variable shares the line), "." in each kind
// of scope, lists inside sections, inverted sections, comments, triple and & tags, blanks inside
// tags, names the view lacks, CRLF line ends and text after the last tag.
TEST(MustacheTemplateTest, TheCornersOfMstchsReadingComeOutTheSame) {
  const std::vector<std::string> templates = {
      "a\n{{#pushed}}\nP\n{{/pushed}}\nb\n",
      "a\n  {{#is_open}}  \n  open {{key}}\n  {{/is_open}}\t\nb",
      "{{#is_open}}\nx\n{{/is_open}}",
      "{{#is_open}} {{key}}\n{{/is_open}}\n",
      "{{key}} {{#is_open}}\n{{/is_open}}\n",
      "{{! a comment }}\n{{key}}{{! inline }}!\n  {{!standalone}}\n.",
      "[{{.}}] {{#key}}<{{.}}>{{/key}} {{#is_open}}<{{.}}>{{/is_open}} {{^pushed}}<{{.}}>"
      "{{/pushed}} {{#examples}}({{.}}|{{text}}){{/examples}}",
      "{{#examples}}{{#text}}[{{.}}]{{/text}}{{key}}{{/examples}}",
      "{{#has_examples}}{{#examples}}- {{text}} / {{json}}\n{{/examples}}{{/has_examples}}",
      "{{#labels}}{{name}}={{value}};{{/labels}}{{^labels}}no labels{{/labels}}",
      "{{^examples}}none{{/examples}}{{^has_changes}}unchanged{{/has_changes}}",
      "{{{key}}} {{& what}} {{ key }} {{#  is_open  }}o{{/ is_open }} {{{ where }}}",
      "{{nothing}}|{{#nothing}}x{{/nothing}}|{{^nothing}}y{{/nothing}}|{{text}}|{{name}}",
      "{{#is_resolve}}r{{/is_resolve}}{{^is_resolve}}n{{/is_resolve}}\r\n{{#is_open}}\r\n"
      "o\r\n{{/is_open}}\r\nend",
      "{{pushed}} {{has_examples}} {{examples}} {{generation}}/{{version}}/{{event_count}}"
      " {{polls}} {{severity_upper}} {{transition_label}}",
      "{{#summary}}{{summary}}: {{/summary}}{{#description}}{{.}}{{/description}}"
      "{{#runbook_url}} <{{runbook_url}}>{{/runbook_url}}",
      "{{#is_open}}{{#is_open}}twice{{/is_open}}{{/is_open}}",
      "{{#ack_link}}{{ack_link}}{{/ack_link}}{{^ack_link}}{{ack_command}}{{/ack_link}}",
      "text only, no tags",
      "",
      "{{key}}",
      "{{a b}} {{{x}}",
      "line\n\n{{#is_open}}\n\n{{/is_open}}\n\n",
  };
  const std::vector<IncidentView> views = Views();
  for (const std::string& text : templates) {
    for (const IncidentView& view : views) {
      for (const bool slack : {false, true}) {
        EXPECT_EQ(Compiled(text, view, slack), Mstch(text, view, slack))
            << "template: " << text << "\nview: " << view.transition;
      }
    }
  }
}

TEST(MustacheTemplateTest, WhatNeedsMoreOfMstchIsNotCompiled) {
  for (const char* text : {"{{>partial}}", "{{=<% %>=}}<% key %>", "{{key.name}}", "{{#a}}x{{/b}}",
                           "{{#a}}x", "x{{/a}}", "{{}}"}) {
    EXPECT_FALSE(MustacheTemplate::Compile(text, IncidentContextNames()).has_value()) << text;
  }
}

// A configured template the compiled form does not take is still rendered, by mstch.
TEST(MustacheTemplateTest, TheRendererFallsBackOnMstchForATemplateThatDoesNotCompile) {
  RendererOptions options;
  options.channels.emplace(
      "ops",
      ChannelTemplates{.type = "webhook", .subject = "", .body = "{{=<% %>=}}<% condition %>!"});
  const MustacheRenderer renderer(options);
  core::OutboxRow row;
  row.channel = "ops";
  row.payload = SamplePayload("open");
  const auto rendered = renderer.Render("webhook", row);
  ASSERT_TRUE(rendered.ok()) << rendered.error().message;
  EXPECT_EQ(rendered->body, "new_errors!");
}

// The one list of names (IncidentContextNames) is what the check accepts, and what
// docs/templates.md's tables under "The view" document: a name added to one and not the others
// fails here.
TEST(MustacheTemplateTest, TheCheckTheRendererAndTheDocsKnowTheSameNames) {
  std::set<std::string> names;
  for (std::string_view name : IncidentContextNames()) {
    names.emplace(name);
    EXPECT_TRUE(CheckTemplateSyntax("{{" + std::string(name) + "}}").ok()) << name;
  }
  EXPECT_EQ(names.size(), IncidentContextNames().size()) << "a name is listed twice";
  EXPECT_FALSE(CheckTemplateSyntax("{{not_a_field}}").ok());

  std::ifstream in(testing::SourcePath("docs/templates.md"));
  ASSERT_TRUE(in) << "docs/templates.md";
  std::stringstream text;
  text << in.rdbuf();
  // A table row's first cell: "| `a`, `b` | ..."; the item names are in the second cell.
  std::set<std::string> documented = {"text", "json", "name", "value"};
  const std::regex row(R"(^\| (`[a-z_]+`(?:, `[a-z_]+`)*) \|)");
  const std::regex name(R"(`([a-z_]+)`)");
  std::string line;
  bool in_view = false;  // "## The view", up to the next section of its level
  while (std::getline(text, line)) {
    if (line.starts_with("## ")) in_view = line == "## The view";
    std::smatch cell;
    if (!in_view) continue;
    if (!std::regex_search(line, cell, row)) continue;
    const std::string first = cell[1];
    for (std::sregex_iterator it(first.begin(), first.end(), name), end; it != end; ++it) {
      documented.insert((*it)[1]);
    }
  }
  EXPECT_EQ(documented, names);
}

}  // namespace mustache_template_test
}  // namespace quell::templates
