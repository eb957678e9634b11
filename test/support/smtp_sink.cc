#include "smtp_sink.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "run_process.h"
#include "test_paths.h"

namespace quell::testing {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using core::ErrorCode;
using core::MakeError;

constexpr const char* kOpenssl = "/usr/bin/openssl";
constexpr auto kStartDeadline = std::chrono::seconds(20);
constexpr auto kStopDeadline = std::chrono::seconds(5);

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

bool SameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

std::string ReceivedMail::Header(std::string_view name) const {
  const size_t end = raw.find("\r\n\r\n");
  std::string_view head(raw.data(), end == std::string::npos ? raw.size() : end + 2);
  std::string value;
  bool in_match = false;
  while (!head.empty()) {
    const size_t eol = head.find("\r\n");
    std::string_view line = head.substr(0, eol);
    head.remove_prefix(eol == std::string_view::npos ? head.size() : eol + 2);
    if (!line.empty() && (line[0] == ' ' || line[0] == '\t')) {
      if (in_match) value.append(line);  // unfolding keeps the white space
      continue;
    }
    if (in_match) return value;
    const size_t colon = line.find(':');
    if (colon != std::string_view::npos && SameName(line.substr(0, colon), name)) {
      in_match = true;
      std::string_view v = line.substr(colon + 1);
      while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
      value.assign(v);
    }
  }
  return value;
}

std::string ReceivedMail::Body() const {
  const size_t end = raw.find("\r\n\r\n");
  return end == std::string::npos ? "" : raw.substr(end + 4);
}

std::string SmtpSink::Unavailable() {
  if (::access(kPython, X_OK) != 0) return std::string("no ") + kPython;
  if (::access(kOpenssl, X_OK) != 0) return std::string("no ") + kOpenssl;
  if (!fs::exists("/usr/lib/python3/dist-packages/aiosmtpd")) {
    return "no aiosmtpd for /usr/bin/python3 (scripts/install-deps installs python3-aiosmtpd)";
  }
  return "";
}

core::Result<std::unique_ptr<SmtpSink>> SmtpSink::Start(const SmtpSinkOptions& options) {
  if (std::string why = Unavailable(); !why.empty()) {
    return MakeError(ErrorCode::kUnavailable, why);
  }
  std::unique_ptr<SmtpSink> sink(new SmtpSink());
  std::string pattern = (fs::temp_directory_path() / "quell-smtp-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) return MakeError(ErrorCode::kInternal, "mkdtemp");
  sink->dir_ = pattern;
  fs::create_directory(sink->dir_ + "/mail");
  sink->ca_file_ = sink->dir_ + "/cert.pem";
  // A P-256 key: quicker to make than RSA, and every TLS stack here speaks it.
  const ProcessResult made = RunProcess(
      {kOpenssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
       "-nodes", "-keyout", sink->dir_ + "/key.pem", "-out", sink->ca_file_, "-days", "2", "-subj",
       "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"});
  if (made.exit_code != 0) {
    return MakeError(ErrorCode::kInternal, "openssl req failed: " + made.err);
  }
  sink->implicit_tls_ = options.implicit_tls;
  if (core::Status launched = sink->Launch(options); !launched) {
    return MakeError(launched.error().code,
                     launched.error().message + "\n--- smtp_sink stderr ---\n" + sink->LogTail());
  }
  return sink;
}

core::Status SmtpSink::Launch(const SmtpSinkOptions& options) {
  std::vector<std::string> argv = {
      kPython,         testing::SourcePath("test/support/smtp_sink.py"),
      "--dir",         dir_ + "/mail",
      "--cert",        ca_file_,
      "--key",         dir_ + "/key.pem",
      "--fail-first",  std::to_string(options.fail_first),
      "--fail-code",   std::to_string(options.fail_code),
      "--reject-code", std::to_string(options.reject_code)};
  if (!options.auth.empty()) {
    argv.emplace_back("--auth");
    argv.push_back(options.auth);
  }
  if (options.no_starttls) argv.emplace_back("--no-starttls");
  if (options.implicit_tls) argv.emplace_back("--implicit-tls");
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::string log = dir_ + "/stderr.log";
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return MakeError(ErrorCode::kInternal, "pipe failed");
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) return MakeError(ErrorCode::kInternal, "fork failed");
  if (pid == 0) {
    // Async-signal-safe calls only: the test may have threads.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlives a killed test binary
    if (::getppid() != parent) ::_exit(1);
    const int in = ::open("/dev/null", O_RDONLY);
    const int err = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || err < 0) ::_exit(126);
    ::dup2(in, 0);
    ::dup2(out[1], 1);
    ::dup2(err, 2);
    ::close_range(3, ~0U, 0);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  pid_ = pid;
  ::close(out[1]);

  // Reads "PORT <n>\n" from the child's stdout.
  std::string line;
  const Clock::time_point deadline = Clock::now() + kStartDeadline;
  while (line.find('\n') == std::string::npos) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      ::close(out[0]);
      return MakeError(ErrorCode::kTimeout, "smtp_sink printed no port within 20 s");
    }
    pollfd p{out[0], POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    char buffer[256];
    const ssize_t n = ::read(out[0], buffer, sizeof buffer);
    if (n <= 0) {
      ::close(out[0]);
      return MakeError(ErrorCode::kUnavailable, "smtp_sink exited while starting");
    }
    line.append(buffer, static_cast<size_t>(n));
  }
  ::close(out[0]);  // it prints nothing more; a write to the closed pipe is not attempted
  if (line.rfind("PORT ", 0) != 0) {
    return MakeError(ErrorCode::kInternal, "smtp_sink printed \"" + line + "\"");
  }
  port_ = std::atoi(line.c_str() + 5);
  return {};
}

std::string SmtpSink::url() const {
  return std::string(implicit_tls_ ? "smtps" : "smtp") + "://127.0.0.1:" + std::to_string(port_);
}

std::vector<ReceivedMail> SmtpSink::Received() const {
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir_ + "/mail")) {
    if (entry.path().extension() == ".eml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<ReceivedMail> mails;
  for (const fs::path& file : files) {
    fs::path envelope = file;
    envelope.replace_extension(".env");
    mails.push_back(ReceivedMail{ReadFile(file), ReadFile(envelope)});
  }
  return mails;
}

void SmtpSink::Stop() {
  if (pid_ <= 0) return;
  ::kill(-pid_, SIGTERM);
  const Clock::time_point end = Clock::now() + kStopDeadline;
  while (Clock::now() < end) {
    if (::waitpid(pid_, nullptr, WNOHANG) != 0) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(-pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

std::string SmtpSink::LogTail() const {
  const std::string log = ReadFile(dir_ + "/stderr.log");
  return log.size() > 2000 ? log.substr(log.size() - 2000) : log;
}

SmtpSink::~SmtpSink() {
  Stop();
  if (!dir_.empty()) {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
}

}  // namespace quell::testing
