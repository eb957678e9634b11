#include "ntfy_receiver.h"

#include <cctype>
#include <nlohmann/json.hpp>

namespace quell::testing {
namespace {

using nlohmann::json;
constexpr size_t kMaxMessageBytes = 4096;
constexpr size_t kMaxTitleBytes = 1024;
constexpr size_t kMaxTagsBytes = 512;

void Error(httplib::Response& res, int http, int code, const std::string& error) {
  res.status = http;
  const json body = {
      {"code", code}, {"http", http}, {"error", error}, {"link", "https://ntfy.sh/docs/publish/"}};
  res.set_content(body.dump() + "\n", "application/json");
}

bool IsTopic(const std::string& topic) {
  if (topic.empty() || topic.size() > 64) return false;
  for (const char c : topic) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  }
  return true;
}

// "min", "low", "default", "high", "max" / "urgent", or 1-5; 0: invalid.
int Priority(const std::string& text) {
  if (text.empty() || text == "default" || text == "3") return 3;
  if (text == "min" || text == "1") return 1;
  if (text == "low" || text == "2") return 2;
  if (text == "high" || text == "4") return 4;
  if (text == "max" || text == "urgent" || text == "5") return 5;
  return 0;
}

std::string Header(const httplib::Request& req, const std::string& name) {
  for (const std::string& n : {name, "X-" + name}) {
    if (req.has_header(n)) return req.get_header_value(n);
  }
  return {};
}

std::vector<std::string> SplitTags(const std::string& text) {
  std::vector<std::string> tags;
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    const size_t comma = text.find(',', start);
    std::string tag = text.substr(start, comma - start);
    while (!tag.empty() && tag.front() == ' ') tag.erase(tag.begin());
    while (!tag.empty() && tag.back() == ' ') tag.pop_back();
    if (!tag.empty()) tags.push_back(tag);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return tags;
}

}  // namespace

NtfyReceiver::NtfyReceiver(std::string token) : token_(std::move(token)) {
  const auto publish = [this](const httplib::Request& req, httplib::Response& res) {
    const std::string auth = req.get_header_value("Authorization");
    const bool authorized = token_.empty() || auth == "Bearer " + token_;
    const Admission admission = Admit(req, res, "", authorized);
    const HangAtExit hang(*this, admission.hang);
    if (!admission.answer) {
      if (!authorized && auth.empty()) Error(res, 403, 40301, "forbidden");
      if (!authorized && !auth.empty()) Error(res, 401, 40101, "unauthorized");
      return;
    }
    NtfyMessage m;
    int priority = 3;
    if (req.path == "/") {
      const json body = json::parse(req.body, nullptr, false);
      if (!body.is_object()) return Error(res, 400, 40024, "invalid request: body is not JSON");
      m.topic = body.value("topic", std::string());
      m.title = body.value("title", std::string());
      m.message = body.value("message", std::string());
      m.click = body.value("click", std::string());
      if (body.contains("priority")) {
        priority = body["priority"].is_number_integer() ? body["priority"].get<int>() : 0;
        if (priority < 1 || priority > 5) priority = 0;
      }
      if (body.contains("tags") && body["tags"].is_array()) {
        for (const json& t : body["tags"]) {
          if (t.is_string()) m.tags.push_back(t.get<std::string>());
        }
      }
    } else {
      m.topic = req.path.substr(1);
      m.title = Header(req, "Title");
      m.message = req.body;
      m.click = Header(req, "Click");
      priority = Priority(Header(req, "Priority"));
      m.tags = SplitTags(Header(req, "Tags"));
    }
    if (!IsTopic(m.topic)) return Error(res, 400, 40009, "invalid request: topic invalid");
    if (priority == 0) return Error(res, 400, 40007, "invalid priority");
    if (m.title.size() > kMaxTitleBytes) return Error(res, 400, 40057, "title too long");
    size_t tag_bytes = 0;
    for (const std::string& t : m.tags) tag_bytes += t.size();
    if (tag_bytes > kMaxTagsBytes) return Error(res, 400, 40058, "tags too long");
    if (m.message.size() > kMaxMessageBytes) {
      return Error(res, 413, 41301, "message too large, and attachments are not allowed");
    }
    if (m.message.empty()) m.message = "triggered";  // ntfy's word for an empty message
    m.priority = priority;
    const std::lock_guard<std::mutex> lock(mu_);
    m.id = "nt" + std::to_string(100000 + messages_.size() + 1) + "x";
    json answer = {
        {"id", m.id},       {"time", 1796000000},   {"expires", 1796043200}, {"event", "message"},
        {"topic", m.topic}, {"message", m.message}, {"priority", m.priority}};
    if (!m.title.empty()) answer["title"] = m.title;
    if (!m.tags.empty()) answer["tags"] = m.tags;
    if (!m.click.empty()) answer["click"] = m.click;
    messages_.push_back(std::move(m));
    res.set_content(answer.dump() + "\n", "application/json");
  };
  server().Post("/", publish);
  server().Post(R"(/([-_A-Za-z0-9]*))", publish);
  server().Put(R"(/([-_A-Za-z0-9]*))", publish);
  Start();
}

std::vector<NtfyMessage> NtfyReceiver::Messages() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return messages_;
}

void NtfyReceiver::WriteFault(Fault fault, httplib::Response& res) {
  if (fault == Fault::kStatus429) {
    Error(res, 429, 42901,
          "limit reached: too many requests; increase your limits with a paid plan, see "
          "https://ntfy.sh");
  } else {
    Error(res, 500, 50001, "internal server error");
  }
}

}  // namespace quell::testing
