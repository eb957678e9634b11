#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "quell/core/conditions/error_group_condition.h"

namespace quell::config {

// The `sentry:` section: one Sentry (sentry.io or a self-hosted one) and its organization.
// Its HTTP settings are an HttpSettings like every source's; kept beside (config.h) so this
// header needs only core's.
struct SentryAccess {
  bool enabled = false;  // a `sentry:` section was given
  std::string base_url = "https://sentry.io";
  std::string org;
  // The token, only by reference (token_env or token_file), read at load, never printed;
  // `token_origin` says where it came from, and `token_unresolved` why a reference named did not
  // resolve, located ("quell.yaml:4:3: sentry.token_env: SENTRY_TOKEN is not set"): `run` and
  // `config check` refuse it when a condition reads Sentry.
  std::string token;
  std::string token_origin;
  std::string token_unresolved;
  uint32_t max_pages = 100;  // per condition and poll
  uint32_t max_enrich = 20;  // tag lookups per condition and poll (see SentryIssueSource)
  std::optional<uint32_t> source_failures_to_open;  // overrides the top-level one
};

// A `type: sentry_issues` condition: one project's issue list, `query` in Sentry's search syntax.
struct SentryConditionConfig {
  core::ErrorGroupCondition condition;
  std::string project;
  std::string query = "is:unresolved";
  std::string where;  // "file:line:column: conditions[i].project", for messages
};

}  // namespace quell::config
