#include "quell/adapters/infrai/envelope.h"

#include <string>

#include "quell/core/redact/redact.h"
#include "quell/core/text/json_repair.h"

namespace quell::infrai {
namespace {

using core::ErrorCode;

ErrorCode CodeForStatus(int status) {
  if (status == 401 || status == 403) return ErrorCode::kPermissionDenied;
  if (status == 404) return ErrorCode::kNotFound;
  if (status == 429 || status >= 500) return ErrorCode::kUnavailable;
  return ErrorCode::kRejected;
}

std::string Prefix(std::string_view what, int status) {
  return std::string(what) + ": HTTP " + std::to_string(status);
}

core::Error WithRetryNote(core::Error error, const core::HttpResponse& response) {
  if (!response.retry_note.empty()) error.message += " (" + response.retry_note + ")";
  return error;
}

core::Result<simdjson::dom::object> ParseObject(simdjson::dom::parser& parser,
                                                const core::HttpResponse& response,
                                                std::string_view what) {
  simdjson::dom::element root;
  auto error = parser.parse(response.body).get(root);
  if (error == simdjson::UTF8_ERROR || error == simdjson::STRING_ERROR) {
    // One title in Latin-1, or cut inside a character (a lone \ud83d from a UTF-16 upstream),
    // would otherwise fail every poll of the source: every incident unknown, nothing new
    // opening. Those become U+FFFD and the rest is read as sent; JSON that is broken in any
    // other way stays broken. The parser copies what it keeps, so the text need not outlive it.
    error = parser.parse(core::RepairJsonText(response.body)).get(root);
  }
  if (error) {
    // An error status with a body that is not JSON (a proxy's HTML page) is still that error.
    const ErrorCode code = response.status >= 200 && response.status < 300
                               ? ErrorCode::kCorrupt
                               : CodeForStatus(response.status);
    return core::MakeError(code, Prefix(what, response.status) + ": the body is not JSON (" +
                                     simdjson::error_message(error) + ", " +
                                     std::to_string(response.body.size()) + " bytes)");
  }
  simdjson::dom::object object;
  if (root.get_object().get(object)) {
    return core::MakeError(response.status >= 200 && response.status < 300
                               ? ErrorCode::kCorrupt
                               : CodeForStatus(response.status),
                           Prefix(what, response.status) + ": the body is JSON but not an object");
  }
  return object;
}

std::string_view StringOr(simdjson::dom::object object, std::string_view key) {
  std::string_view text;
  if (object[key].get_string().get(text)) return {};
  return text;
}

core::Result<simdjson::dom::object> OpenEnvelopeImpl(simdjson::dom::parser& parser,
                                                     const core::HttpResponse& response,
                                                     std::string_view what) {
  auto parsed = ParseObject(parser, response, what);
  if (!parsed) return parsed.error();
  const simdjson::dom::object body = *parsed;
  bool ok = false;
  if (body["ok"].get_bool().get(ok)) {
    return core::MakeError(
        response.status >= 200 && response.status < 300 ? ErrorCode::kCorrupt
                                                        : CodeForStatus(response.status),
        Prefix(what, response.status) + ": not an Infrai envelope (no boolean \"ok\")");
  }
  if (!ok) {
    simdjson::dom::object error;
    std::string message = Prefix(what, response.status);
    if (!body["error"].get_object().get(error)) {
      const std::string_view code = StringOr(error, "code");
      const std::string_view text = StringOr(error, "message");
      const std::string_view hint = StringOr(error, "hint");
      // The remote's own words are redacted here, where they become quell's text: an error
      // may quote the key it refused or the account it belongs to.
      if (!code.empty()) message += " " + core::RedactErrorText(code);
      if (!text.empty()) message += ": " + core::RedactErrorText(text);
      if (!hint.empty()) message += " (" + core::RedactErrorText(hint) + ")";
    } else {
      message += ": ok is false and there is no error object";
    }
    const int status = response.status >= 200 && response.status < 300 ? 400 : response.status;
    return core::MakeError(CodeForStatus(status), message);
  }
  if (response.status < 200 || response.status >= 300) {
    return core::MakeError(CodeForStatus(response.status),
                           Prefix(what, response.status) + ": ok is true on an error status");
  }
  simdjson::dom::object data;
  if (body["data"].get_object().get(data)) {
    return core::MakeError(ErrorCode::kCorrupt,
                           Prefix(what, response.status) + ": \"data\" is not an object");
  }
  return data;
}

}  // namespace

core::Result<simdjson::dom::object> OpenEnvelope(simdjson::dom::parser& parser,
                                                 const core::HttpResponse& response,
                                                 std::string_view what) {
  auto data = OpenEnvelopeImpl(parser, response, what);
  if (!data) return WithRetryNote(data.error(), response);
  return data;
}

core::Result<simdjson::dom::object> OpenBareObject(simdjson::dom::parser& parser,
                                                   const core::HttpResponse& response,
                                                   std::string_view what) {
  auto parsed = ParseObject(parser, response, what);
  if (!parsed) return parsed.error();
  if (response.status < 200 || response.status >= 300) {
    // Discovery errors may still come enveloped; reuse that decoding when they do.
    bool ok = true;
    if (!(*parsed)["ok"].get_bool().get(ok) && !ok) {
      auto enveloped = OpenEnvelope(parser, response, what);
      if (!enveloped) return enveloped.error();
    }
    return WithRetryNote(
        core::MakeError(CodeForStatus(response.status), Prefix(what, response.status)), response);
  }
  return parsed;
}

}  // namespace quell::infrai
