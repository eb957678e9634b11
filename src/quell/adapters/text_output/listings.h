#pragma once

#include <cstdio>
#include <vector>

#include "quell/adapters/text_output/text_table.h"
#include "quell/core/engine/incident.h"
#include "quell/core/engine/silence.h"
#include "quell/core/ports/outbox_row.h"

namespace quell::text_output {

// The listings the commands print, in `format`: a table with a header row, or one JSON object
// per line (listing_json.h). The columns are part of the command-line contract.

// `incidents list`: KEY CONDITION STATUS ACKED GEN VERSION STREAK EVENTS FIRST_SEEN LAST_SEEN
// LAST_NOTIFIED; ACKED is who acked it ("-": nobody).
void PrintIncidents(std::FILE* out, const std::vector<core::Incident>& incidents,
                    ListFormat format);
// `incidents show`: one field per row, no header.
void PrintIncident(std::FILE* out, const core::Incident& incident, ListFormat format);
// `outbox list`: IDEMPOTENCY_KEY KEY GEN VERSION TRANSITION CHANNEL STATUS ATTEMPTS CREATED.
void PrintOutbox(std::FILE* out, const std::vector<core::OutboxRow>& rows, ListFormat format);
// `outbox dead list`: ... ATTEMPTS UPDATED_AT LAST_ERROR in place of STATUS and CREATED.
void PrintDeadRows(std::FILE* out, const std::vector<core::OutboxRow>& rows, ListFormat format);
// `silence list`: ID PATTERN EXPIRES_AT CREATED_BY CREATED_AT REASON.
void PrintSilences(std::FILE* out, const std::vector<core::Silence>& silences, ListFormat format);

}  // namespace quell::text_output
