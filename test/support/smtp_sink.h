#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "quell/core/result.h"

namespace quell::testing {

struct SmtpSinkOptions {
  std::string auth;    // "user:password" AUTH must present; empty: no AUTH
  int fail_first = 0;  // answer DATA of the first N messages with fail_code
  int fail_code = 451;
  int reject_code = 0;        // answer every RCPT TO with this code (e.g. 550); 0: accept
  bool no_starttls = false;   // offer no STARTTLS (and accept plain text)
  bool implicit_tls = false;  // smtps: TLS from the first byte
};

// One message the sink accepted.
struct ReceivedMail {
  std::string raw;       // as received, CRLF line ends, dot-stuffing undone
  std::string envelope;  // "from A\nto B\n...tls yes|no\nauth yes|no\n"

  // The value of the first header `name` (case-insensitive), unfolded; empty when absent.
  std::string Header(std::string_view name) const;
  std::string Body() const;  // after the blank line, still transfer-encoded
};

// A real SMTP server (test/support/smtp_sink.py on Debian's python3-aiosmtpd) as a child
// process on a loopback port the kernel picked, with a fresh self-signed certificate whose PEM
// file clients trust through ca_file(). STARTTLS is required unless no_starttls.
class SmtpSink {
 public:
  static constexpr const char* kPython = "/usr/bin/python3";

  // Why no sink can run here (python3-aiosmtpd or openssl missing); empty when it can.
  static std::string Unavailable();
  // Starts the server and returns once it printed its port (deadline 20 s); the error has the
  // tail of its stderr.
  static core::Result<std::unique_ptr<SmtpSink>> Start(const SmtpSinkOptions& options = {});

  ~SmtpSink();
  SmtpSink(const SmtpSink&) = delete;
  SmtpSink& operator=(const SmtpSink&) = delete;

  int port() const { return port_; }
  std::string url() const;  // smtp://127.0.0.1:PORT (smtps:// with implicit_tls)
  const std::string& ca_file() const { return ca_file_; }
  // Every accepted message so far, in arrival order. A message is on disk before the server
  // answers 250, so after a successful send it is here without waiting.
  std::vector<ReceivedMail> Received() const;
  // SIGTERM by PID, SIGKILL after 5 s; idempotent.
  void Stop();
  std::string LogTail() const;

 private:
  SmtpSink() = default;
  core::Status Launch(const SmtpSinkOptions& options);

  std::string dir_;
  std::string ca_file_;
  bool implicit_tls_ = false;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace quell::testing

// Skips the calling test when the sink cannot run here; under CI=true fails it instead.
#define QUELL_REQUIRE_SMTP_SINK()                                                      \
  do {                                                                                 \
    if (std::string why = ::quell::testing::SmtpSink::Unavailable(); !why.empty()) {   \
      const char* ci = std::getenv("CI"); /* NOLINT(concurrency-mt-unsafe) */          \
      if (ci != nullptr && std::string(ci) == "true") FAIL() << "CI=true but " << why; \
      GTEST_SKIP() << why;                                                             \
    }                                                                                  \
  } while (0)
