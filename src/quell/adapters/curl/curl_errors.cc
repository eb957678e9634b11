#include "quell/adapters/curl/curl_errors.h"

#include "quell/core/redact/redact_url.h"

namespace quell::curl {

core::ErrorCode CurlErrorCode(CURLcode code) {
  using core::ErrorCode;
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
      return ErrorCode::kTimeout;
    // The peer or the path to it failed this time; the same request may well succeed later.
    // A failed TLS handshake (SSL_CONNECT_ERROR) is here too: a reset during the handshake
    // looks the same, and a certificate that fails verification has a code of its own.
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_PARTIAL_FILE:
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_FAIL_REWIND:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_HTTP3:
    case CURLE_QUIC_CONNECT_ERROR:
    case CURLE_PROXY:
    case CURLE_AGAIN:
      return ErrorCode::kUnavailable;
    // TLS verification and TLS configuration: the same request fails the same way again.
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CLIENTCERT:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_USE_SSL_FAILED:
    case CURLE_FILESIZE_EXCEEDED:
      return ErrorCode::kRejected;
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      return ErrorCode::kInvalidArgument;
    default:
      return ErrorCode::kInternal;
  }
}

std::string RequestLabel(std::string_view method, std::string_view url) {
  std::string label(method);
  label += ' ';
  label += core::RedactUrl(url);
  return label;
}

}  // namespace quell::curl
