#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "quell/core/ports/incident_store.h"
#include "quell/core/ports/lease_store.h"
#include "quell/core/ports/operator_store.h"
#include "quell/core/ports/outbox_store.h"
#include "quell/core/ports/shadow_report_store.h"

struct pg_conn;

namespace quell::postgres {

// The store for several workers: PostgreSQL through libpq. A transaction locks the rows it
// loads (SELECT ... ORDER BY key FOR UPDATE, so two workers lock in the same order), writes
// with compare-and-set on version and batches every statement with unnest() arrays. A new key
// inserted by two workers at once makes the loser's PutIncidents fail with kConflict; the
// caller rolls back to its savepoint, re-reads and re-evaluates. It is also the dispatcher's
// outbox (pg_outbox_store.cc): claims lock their rows with FOR UPDATE SKIP LOCKED, so workers
// claiming at once take disjoint rows without waiting. It is the operator's store too
// (pg_operator_store.cc) and the shadow report's. One instance per thread.
class PgIncidentStore : public core::IncidentStore,
                        public core::OutboxStore,
                        public core::OperatorStore,
                        public core::ShadowReportStore,
                        public core::LeaseStore {
 public:
  // Connects to `url` (postgresql://...) and applies missing migrations under an advisory
  // lock, so workers starting together migrate once. kUnavailable names host and port (never
  // the password) when the server cannot be reached or refuses the login. A connection the
  // server drops later is reset by the store itself, with backoff (pg_connection.h).
  static core::Result<std::unique_ptr<PgIncidentStore>> Open(const std::string& url);
  ~PgIncidentStore() override;

  core::Result<std::unique_ptr<core::StoreTransaction>> Begin() override;
  core::Result<std::vector<core::Incident>> ListIncidents() override;
  core::Result<std::optional<core::Incident>> FindIncident(std::string_view key) override;
  core::Result<std::vector<core::Incident>> ListOpenIncidents(std::string_view condition) override;
  core::Result<std::vector<std::string>> ListWatchedKeysAfter(std::string_view condition,
                                                              std::string_view after,
                                                              size_t limit) override;
  core::Status FindIncidents(std::span<const std::string> keys,
                             std::vector<core::Incident>& out) override;
  core::Result<std::vector<core::OutboxRow>> ListOutbox(
      std::optional<core::OutboxStatus> status) override;
  core::Status MarkSent(std::string_view idempotency_key, std::string_view remote_message_id,
                        core::WallTime now) override;
  core::Result<std::optional<std::string>> GetSourceMark(std::string_view name) override;
  core::Result<uint64_t> CountDecisions() override;
  core::Result<uint64_t> CountPolls() override;

  core::Result<std::array<uint64_t, 7>> CountDecisionsSince(core::WallTime since) override;
  core::Result<std::vector<core::KeyGroupRow>> KeyGroupsSince(core::WallTime since) override;

  core::Result<std::vector<core::OutboxRow>> ClaimDue(std::string_view owner, core::WallTime now,
                                                      core::Duration lease, size_t limit) override;
  core::Result<std::vector<std::string>> CancelUnwantedTierRows(
      std::string_view owner, std::span<const core::OutboxRow> claimed,
      core::WallTime now) override;
  core::Result<std::vector<core::Status>> RecordOutcomes(
      std::string_view owner, std::span<const core::OutboxOutcome> outcomes,
      core::WallTime now) override;
  core::Result<std::vector<core::WallTime>> SentTimes(std::string_view channel,
                                                      core::WallTime since) override;
  core::Result<std::vector<core::OutboxRow>> FoldedRows(std::string_view channel,
                                                        std::string_view tenant,
                                                        core::WallTime start,
                                                        core::WallTime end) override;
  core::Result<std::vector<core::OutboxRow>> DeadRows(core::WallTime start,
                                                      core::WallTime end) override;
  core::Result<uint64_t> TrimOutbox(core::WallTime cutoff, size_t limit) override;
  core::Result<std::vector<core::WaitingGroup>> WaitingGroups() override;
  core::Result<std::optional<core::OutboxRow>> AssembleGroup(
      std::string_view channel, std::string_view group_key, core::WallTime now,
      const core::GroupPlanner& plan) override;
  core::Result<std::vector<core::OutboxRow>> GroupMembers(std::string_view group_row) override;
  core::Result<core::GroupStanding> GroupStandingAt(std::string_view channel,
                                                    std::string_view group_key,
                                                    core::WallTime at) override;
  core::Result<std::string> ThreadRemoteId(std::string_view key, uint64_t generation,
                                           std::string_view channel) override;

  core::Result<uint64_t> CountOpenIncidents() override;
  core::Result<std::map<std::string, uint64_t>> CountOutboxByStatus() override;
  core::Result<uint64_t> AddSilence(const core::Silence& silence) override;
  core::Result<std::vector<core::Silence>> ListSilences(
      std::optional<core::WallTime> active_at) override;
  core::Status RemoveSilence(uint64_t id) override;
  core::Result<core::OutboxStatus> RetryDead(std::string_view idempotency_key,
                                             core::WallTime now) override;
  core::Result<RetriedRows> RetryAllDead(std::optional<std::string_view> channel,
                                         core::WallTime now) override;
  core::Status DropDead(std::string_view idempotency_key, core::WallTime now) override;
  core::Result<std::vector<core::ChannelUse>> GenerationChannels(std::string_view key,
                                                                 uint64_t generation) override;
  core::Result<std::vector<core::IncidentGeneration>> OpenMembersOfMessage(
      std::string_view group_row) override;
  core::Result<std::vector<core::IncidentGeneration>> OpenMembersOfGroup(
      std::string_view channel, std::string_view group_key, std::optional<uint64_t> episode,
      core::WallTime carried_by) override;
  core::Result<std::vector<core::IncidentGeneration>> GroupMemberKeys(std::string_view channel,
                                                                      std::string_view group_key,
                                                                      size_t limit) override;
  core::Result<std::vector<core::LoggedDecision>> RecentDecisions(std::string_view key,
                                                                  size_t limit) override;
  core::Result<std::vector<core::OutboxRow>> GroupMessagesOf(std::string_view key,
                                                             size_t limit) override;
  core::Result<std::vector<core::OutboxRow>> RecentOutbox(std::string_view key,
                                                          size_t limit) override;
  core::Result<core::StoredTimeline> ReadTimeline(std::string_view key, size_t limit) override;
  core::Result<core::IncidentPage> ListIncidentPage(const core::IncidentPageQuery& query) override;
  core::Result<uint64_t> AddOneOffWindow(const core::OneOffWindow& window) override;
  core::Result<std::vector<core::OneOffWindow>> ListOneOffWindows(
      core::WallTime ends_after) override;
  core::Result<core::OneOffWindow> ExpireOneOffWindow(uint64_t id, core::WallTime now) override;

  class Connection;

  // For tests (test/contract/query_plan_contract_test.cc): each statement text this
  // connection runs from now on, with the parameters of its first run (nullopt for NULL), so
  // a test can EXPLAIN what the store really sends. nullptr stops recording.
  using StatementLog = std::map<std::string, std::vector<std::optional<std::string>>>;
  void RecordStatements(StatementLog* log);

  core::Result<core::LeaseClaim> Acquire(std::string_view name, std::string_view holder,
                                         core::WallTime now, core::Duration ttl) override;
  core::Status Release(std::string_view name, std::string_view holder, uint64_t token,
                       core::WallTime now) override;
  core::Result<std::vector<core::Lease>> ListLeases() override;
  core::Status SeeInstance(const core::InstanceSeen& instance,
                           core::WallTime forget_before) override;
  core::Result<std::vector<core::InstanceSeen>> ListInstances() override;

 private:
  explicit PgIncidentStore(std::unique_ptr<Connection> connection);
  core::Status Migrate();

  std::unique_ptr<Connection> connection_;
};

}  // namespace quell::postgres
