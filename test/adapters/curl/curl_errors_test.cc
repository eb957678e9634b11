#include "quell/adapters/curl/curl_errors.h"

#include <gtest/gtest.h>

namespace quell::curl {
namespace {

using core::ErrorCode;

TEST(CurlErrorsTest, MapsTransferFailuresToRetryDecisions) {
  EXPECT_EQ(CurlErrorCode(CURLE_OPERATION_TIMEDOUT), ErrorCode::kTimeout);
  for (CURLcode transient : {CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_SEND_ERROR,
                             CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE}) {
    EXPECT_EQ(CurlErrorCode(transient), ErrorCode::kUnavailable) << transient;
  }
  for (CURLcode tls : {CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE,
                       CURLE_SSL_CERTPROBLEM, CURLE_SSL_PINNEDPUBKEYNOTMATCH}) {
    EXPECT_EQ(CurlErrorCode(tls), ErrorCode::kRejected) << tls;
  }
  EXPECT_EQ(CurlErrorCode(CURLE_URL_MALFORMAT), ErrorCode::kInvalidArgument);
  EXPECT_EQ(CurlErrorCode(CURLE_UNSUPPORTED_PROTOCOL), ErrorCode::kInvalidArgument);
  EXPECT_EQ(CurlErrorCode(CURLE_OUT_OF_MEMORY), ErrorCode::kInternal);
}

// A query may hold a webhook's key (?apikey=), and nothing tells it from a page number: every
// parameter is shown by name only.
TEST(CurlErrorsTest, LabelsRequestsWithoutUserinfoAndQueryValues) {
  EXPECT_EQ(RequestLabel("GET", "http://127.0.0.1:4100/v1/errors/groups?limit=5"),
            "GET http://127.0.0.1:4100/v1/errors/groups?limit=[redacted]");
  EXPECT_EQ(RequestLabel("POST", "https://hooks.example/in?apikey=SECRET&x"),
            "POST https://hooks.example/in?apikey=[redacted]&[redacted]");
  EXPECT_EQ(RequestLabel("POST", "https://user:pw@api.example/x@y"),
            "POST https://api.example/x@y");
  EXPECT_EQ(RequestLabel("GET", "https://a:b@c@host"), "GET https://host");
  EXPECT_EQ(RequestLabel("GET", "not a url"), "GET not a url");
}

}  // namespace
}  // namespace quell::curl
