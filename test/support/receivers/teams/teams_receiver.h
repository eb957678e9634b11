#pragma once

#include <map>
#include <string>
#include <vector>

#include "loopback_receiver.h"

namespace quell::testing {

// One card as the Teams stand-in posted it to the channel.
struct TeamsCard {
  std::string title;                         // the first TextBlock's text
  std::vector<std::string> lines;            // the other TextBlocks' texts
  std::map<std::string, std::string> facts;  // the FactSet, title -> value
  size_t bytes = 0;                          // the request body's size
};

// A Teams Workflows webhook ("When a Teams webhook request is received" followed by "Post card
// in a chat or channel", learn.microsoft.com/microsoftteams/platform/webhooks-and-connectors/
// how-to/add-incoming-webhook and .../connectors-using): POST <Url()>, a Logic Apps trigger URL
// whose sig= query parameter is the credential (401 DirectApiInvalidAuthorizationSignature
// otherwise), a JSON body (400 InvalidRequestContent otherwise), answered 202 with no body and
// no message id before the flow runs. The flow then posts the first attachment's Adaptive Card:
// it needs {"type":"message","attachments":[{"contentType":"application/vnd.microsoft.card.
// adaptive","content":{"type":"AdaptiveCard","version":...,"body":[...]}}]}, every TextBlock
// with its text, and the whole message within Teams' 28 KB; a card that fails any of this makes
// the run fail (FailedRuns()) though the trigger said 202, as Workflows do. No idempotency: a
// retried request is a second card (Requests() marks it duplicate by the card's "quell id"
// fact). Faults answer Logic Apps' error JSON (429 WorkflowRequestsThrottled with Retry-After).
class TeamsReceiver : public LoopbackReceiver {
 public:
  explicit TeamsReceiver(std::string signature);
  ~TeamsReceiver() override = default;

  // The trigger URL, signature included.
  std::string Url() const;
  std::vector<TeamsCard> Cards() const;
  // Runs that failed after the trigger accepted the request, with why.
  std::vector<std::string> FailedRuns() const;

 private:
  void WriteFault(Fault fault, httplib::Response& res) override;

  const std::string signature_;
  std::vector<TeamsCard> cards_;          // guarded by mu_
  std::vector<std::string> failed_runs_;  // guarded by mu_
};

}  // namespace quell::testing
