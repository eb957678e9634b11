#pragma once

#include <memory>
#include <string>
#include <vector>

#include "quell/adapters/config/config.h"
#include "quell/adapters/curl/curl_multi_client.h"
#include "quell/adapters/templates/mustache_renderer.h"
#include "quell/app/dispatcher.h"
#include "quell/core/ports/channel.h"
#include "quell/core/ports/clock.h"
#include "quell/core/ports/outbox_store.h"
#include "quell/core/ports/store.h"

namespace quell::wiring {

// The renderer's settings from a config: each channel's templates with where they are written.
templates::RendererOptions RendererOptionsFor(const config::Config& config);

// The limits a configured channel's route gets (attempts, backoff, throttle budget, SMS
// pacing): one place, so every dispatcher built from a config treats the channel alike.
app::ChannelLimits ChannelLimitsFor(const config::ChannelConfig& channel,
                                    const config::Config& config);
// The dispatcher's settings from a config's dispatch and retention sections.
app::DispatcherOptions DispatcherOptionsFor(const config::Config& config, std::string owner);

// What would stop DispatchWiring::Create, found without a store: every unresolved channel
// secret, every channel that cannot be built as configured, every template problem; each
// message located in the config where it can be.
std::vector<std::string> ChannelProblems(const config::Config& config, core::Clock& clock);

// Every adapter delivery needs, built from a config: one libcurl multi client for the HTTP
// channels, the e-mail channels, the template renderer (its templates checked here, so a typo
// stops quell at start) and the Dispatcher with one route per configured channel.
class DispatchWiring {
 public:
  // kInvalidArgument when a channel cannot be built as configured, a channel secret did not
  // resolve (an unset variable, an unreadable file) or a template is wrong. With
  // `claim_ahead_url` (the store's own URL) the wiring opens and owns a second connection on
  // which the dispatcher claims its next batch while one is on the wire (see
  // Dispatcher::ClaimAheadWith) and, on PostgreSQL, a third for outcomes
  // (Dispatcher::RecordWith); empty: every claim and outcome on `store`.
  static core::Result<std::unique_ptr<DispatchWiring>> Create(const config::Config& config,
                                                              core::OutboxStore& store,
                                                              core::Clock& clock, std::string owner,
                                                              const std::string& claim_ahead_url);

  app::Dispatcher& dispatcher() { return *dispatcher_; }

 private:
  DispatchWiring() = default;

  std::unique_ptr<curl::CurlMultiClient> http_;
  std::unique_ptr<templates::MustacheRenderer> renderer_;
  std::vector<std::unique_ptr<core::HttpChannel>> http_channels_;
  std::vector<std::unique_ptr<core::Channel>> channels_;
  // Before the dispatcher: it may return a batch claimed ahead when it is destroyed.
  std::unique_ptr<core::Store> claim_ahead_store_;
  std::unique_ptr<core::Store> record_store_;
  std::unique_ptr<app::Dispatcher> dispatcher_;
};

}  // namespace quell::wiring
