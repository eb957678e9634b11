#include "healthchecks_receiver.h"

namespace quell::testing {

HealthchecksReceiver::HealthchecksReceiver() {
  const auto handler = [this](const httplib::Request& req, httplib::Response& res) {
    const std::string base = std::string("/ping/") + kUuid;
    HealthchecksPing ping;
    if (req.path == base) {
      ping.kind = "success";
    } else if (req.path == base + "/start") {
      ping.kind = "start";
    } else if (req.path == base + "/fail") {
      ping.kind = "fail";
    } else {
      res.status = 404;
      res.set_content("not found", "text/plain");
      return;
    }
    ping.rid = req.get_param_value("rid");
    ping.body = req.body;
    const Admission admission = Admit(req, res, "", true);
    const HangAtExit hang(*this, admission.hang);
    ping.accepted = admission.answer;
    {
      const std::lock_guard<std::mutex> lock(mu_);
      pings_.push_back(ping);
    }
    if (!admission.answer) return;
    res.status = 200;
    res.set_content("OK", "text/plain");
  };
  server().Get(".*", handler);
  server().Post(".*", handler);
  Start();
}

std::vector<HealthchecksPing> HealthchecksReceiver::Pings() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return pings_;
}

}  // namespace quell::testing
