#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "quell/app/operator_commands.h"
#include "quell/core/result.h"
#include "quell/core/text/time.h"

namespace quell::app {

enum class PagerAction { kAck, kResolve };

// A pager said an alert quell raised was acknowledged or resolved there. `dedup_key` is what
// quell sent it (channels::PagerDutyDedupKey): "<key>:<generation>" for one incident, which is
// acted on only while that generation is open, or "{group}:<group key>" for a group, whose
// open members (the open incidents whose condition and labels make that group key) are each
// acted on. Returns the keys acked or resolved, in key order; kNotFound when the dedup key
// names nothing open of quell's (not one of its keys, an earlier generation, already
// resolved), which a caller answers without retrying. Acks keep an earlier ack (see
// OperatorCommands::Ack); resolves are OperatorCommands::Resolve's, by `by`.
core::Result<std::vector<std::string>> ApplyPagerAction(OperatorCommands& commands,
                                                        std::string_view dedup_key,
                                                        PagerAction action, std::string_view by,
                                                        core::WallTime now);

}  // namespace quell::app
