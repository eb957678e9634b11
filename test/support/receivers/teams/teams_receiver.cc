#include "teams_receiver.h"

#include <nlohmann/json.hpp>

namespace quell::testing {
namespace {

using nlohmann::json;

constexpr const char* kPath = "/workflows/5f0c1d2e/triggers/manual/paths/invoke";
// "The message size limit is 28 KB. When the size exceeds 28 KB, you receive an error."
constexpr size_t kMaxMessageBytes = 28 * 1024;

void Error(httplib::Response& res, int status, const std::string& code,
           const std::string& message) {
  res.status = status;
  res.set_content(json{{"error", {{"code", code}, {"message", message}}}}.dump(),
                  "application/json; charset=utf-8");
}

// Why the flow's "Post card in a chat or channel" step would fail on `body`, or "" and `card`.
std::string CheckCard(const json& body, size_t bytes, TeamsCard& card) {
  if (bytes > kMaxMessageBytes) return "the message is over 28 KB";
  if (!body.is_object() || body.value("type", "") != "message") return "type is not \"message\"";
  if (!body.contains("attachments") || !body["attachments"].is_array() ||
      body["attachments"].empty()) {
    return "no attachments";
  }
  const json& attachment = body["attachments"][0];
  if (!attachment.is_object() ||
      attachment.value("contentType", "") != "application/vnd.microsoft.card.adaptive") {
    return "the attachment is not an Adaptive Card";
  }
  if (!attachment.contains("content") || !attachment["content"].is_object()) return "no content";
  const json& content = attachment["content"];
  if (content.value("type", "") != "AdaptiveCard") return "content.type is not AdaptiveCard";
  if (!content.contains("version") || !content["version"].is_string()) return "no version";
  if (!content.contains("body") || !content["body"].is_array()) return "no body";
  for (const json& element : content["body"]) {
    const std::string type = element.is_object() ? element.value("type", "") : "";
    if (type == "TextBlock") {
      if (!element.contains("text") || !element["text"].is_string())
        return "a TextBlock has no text";
      (card.title.empty() ? card.title : card.lines.emplace_back()) =
          element["text"].get<std::string>();
    } else if (type == "FactSet") {
      if (!element.contains("facts") || !element["facts"].is_array())
        return "a FactSet has no facts";
      for (const json& fact : element["facts"]) {
        if (!fact.is_object() || !fact.contains("title") || !fact.contains("value")) {
          return "a fact needs title and value";
        }
        card.facts[fact["title"].get<std::string>()] = fact["value"].get<std::string>();
      }
    } else {
      return "unknown element type \"" + type + "\"";
    }
  }
  if (card.title.empty()) return "the card shows nothing";
  card.bytes = bytes;
  return {};
}

}  // namespace

TeamsReceiver::TeamsReceiver(std::string signature) : signature_(std::move(signature)) {
  server().Post(kPath, [this](const httplib::Request& req, httplib::Response& res) {
    const bool authorized = req.get_param_value("sig") == signature_ &&
                            req.get_param_value("api-version") == "2016-06-01";
    const json body = json::parse(req.body, nullptr, false);
    TeamsCard card;
    const std::string problem = body.is_discarded() ? "" : CheckCard(body, req.body.size(), card);
    const auto quell_id = card.facts.find("quell id");
    const Admission admission =
        Admit(req, res, quell_id == card.facts.end() ? "" : quell_id->second, authorized);
    const HangAtExit hang(*this, admission.hang);
    if (!admission.answer) {
      if (!authorized) {
        Error(res, 401, "DirectApiInvalidAuthorizationSignature",
              "The provided authorization signature is not valid.");
      }
      return;
    }
    if (body.is_discarded()) {
      return Error(res, 400, "InvalidRequestContent",
                   "The input body for trigger 'manual' of type 'Request' must be of type JSON.");
    }
    {
      const std::lock_guard<std::mutex> lock(mu_);
      if (problem.empty()) {
        cards_.push_back(std::move(card));
      } else {
        failed_runs_.push_back(problem);
      }
    }
    res.status = 202;
  });
  Start();
}

std::string TeamsReceiver::Url() const {
  return BaseUrl() + kPath +
         "?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=" + signature_;
}

std::vector<TeamsCard> TeamsReceiver::Cards() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return cards_;
}

std::vector<std::string> TeamsReceiver::FailedRuns() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return failed_runs_;
}

void TeamsReceiver::WriteFault(Fault fault, httplib::Response& res) {
  const int status = res.status;
  if (fault == Fault::kStatus429) {
    Error(res, 429, "WorkflowRequestsThrottled",
          "Number of workflow requests has exceeded the limit. Retry after the time in the "
          "Retry-After header.");
  } else {
    Error(res, 500, "InternalServerError", "Encountered an internal server error.");
  }
  res.status = status;
}

}  // namespace quell::testing
