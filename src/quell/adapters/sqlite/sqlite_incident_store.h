#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "quell/core/ports/incident_store.h"
#include "quell/core/ports/lease_store.h"
#include "quell/core/ports/operator_store.h"
#include "quell/core/ports/outbox_store.h"
#include "quell/core/ports/shadow_report_store.h"

struct sqlite3;

namespace quell::sqlite {

struct SqliteOptions {
  // How long a writer waits for another process's write transaction before giving up with
  // kUnavailable ("database is locked by another process").
  std::chrono::milliseconds busy_timeout{30000};
  // false: a missing file is kNotFound ("no store at PATH") instead of a new empty store, for
  // commands that only look at what is there.
  bool create = true;
};

// The embedded store: one SQLite file in WAL mode. Several processes may share the file; write
// transactions are serialised by BEGIN IMMEDIATE, so a batch never loses a compare-and-set.
// It is also the dispatcher's outbox (sqlite_outbox_store.cc): a claim is one
// UPDATE ... RETURNING, which holds the write lock, so two owners never lease one row. And
// the operator's store (sqlite_operator_store.cc) and the shadow report's. One instance per
// thread.
class SqliteIncidentStore : public core::IncidentStore,
                            public core::OutboxStore,
                            public core::OperatorStore,
                            public core::ShadowReportStore,
                            public core::LeaseStore {
 public:
  // Opens `path` (creating it unless options.create is false) and applies any missing schema
  // migrations. Errors, each one line naming the path: kNotFound (no file, when not creating),
  // kUnavailable (locked), kPermissionDenied (read-only or not openable), kCorrupt (not a quell
  // database, corrupt, or a schema newer than this build).
  static core::Result<std::unique_ptr<SqliteIncidentStore>> Open(const std::string& path,
                                                                 SqliteOptions options = {});
  ~SqliteIncidentStore() override;

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

  core::Result<core::LeaseClaim> Acquire(std::string_view name, std::string_view holder,
                                         core::WallTime now, core::Duration ttl) override;
  core::Status Release(std::string_view name, std::string_view holder, uint64_t token,
                       core::WallTime now) override;
  core::Result<std::vector<core::Lease>> ListLeases() override;
  core::Status SeeInstance(const core::InstanceSeen& instance,
                           core::WallTime forget_before) override;
  core::Result<std::vector<core::InstanceSeen>> ListInstances() override;
  // For tests (test/contract/query_plan_contract_test.cc): adds to `texts` the text of every
  // statement prepared on this connection now, and of every statement run from now on (the
  // ones prepared at first use or per call), so a test can EXPLAIN all of them. nullptr stops.
  void RecordStatements(std::set<std::string>* texts);

  struct Statements;        // prepared once, reused by every transaction
  struct OutboxStatements;  // the dispatcher's, in sqlite_outbox_store.cc
  struct OutboxStatementsDeleter {
    void operator()(OutboxStatements* statements) const;
  };
  struct LeaseStatements;  // the lease keeper's, in sqlite_lease_store.cc
  struct LeaseStatementsDeleter {
    void operator()(LeaseStatements* statements) const;
  };

 private:
  friend class SqliteTransaction;
  SqliteIncidentStore(std::string path, sqlite3* db);
  core::Status Migrate();
  core::Result<uint64_t> Count(const char* sql);
  core::Status PrepareOutbox();
  core::Result<LeaseStatements*> LeaseStmts();  // prepared at first use

  std::string path_;
  sqlite3* db_;
  std::unique_ptr<Statements> statements_;
  std::unique_ptr<OutboxStatements, OutboxStatementsDeleter> outbox_;
  std::unique_ptr<LeaseStatements, LeaseStatementsDeleter> leases_;
};

}  // namespace quell::sqlite
