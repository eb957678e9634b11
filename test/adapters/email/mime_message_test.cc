#include "quell/adapters/channels/email/mime_message.h"

#include <gtest/gtest.h>

#include "quell/adapters/channels/email/message_id.h"
#include "quell/adapters/channels/email/smtp_outcome.h"

namespace quell::email {
namespace {

using std::chrono::hours;

const core::WallTime kDay = core::WallTime{hours{24 * 20789}};  // Wed 2026-12-02

TEST(MimeMessageTest, FormatsTheDateInRfc5322) {
  EXPECT_EQ(FormatRfc5322Date(kDay + hours{9} + std::chrono::seconds{5}),
            "Wed, 02 Dec 2026 09:00:05 +0000");
  EXPECT_EQ(FormatRfc5322Date(core::WallTime{}), "Thu, 01 Jan 1970 00:00:00 +0000");
}

TEST(MimeMessageTest, LeavesAsciiSubjectsAloneAndEncodesTheRest) {
  EXPECT_EQ(EncodeHeaderText("disk full on db-1"), "disk full on db-1");
  EXPECT_EQ(EncodeHeaderText("caf\u00e9"), "=?UTF-8?B?Y2Fmw6k=?=");
  // Long non-ASCII text: several encoded-words on folded lines, none longer than 75 characters,
  // and no character split between two words (each word decodes to valid UTF-8 on its own).
  std::string long_text;
  for (int i = 0; i < 40; ++i) long_text += "\u00e9\u4e2d";
  const std::string encoded = EncodeHeaderText(long_text);
  size_t start = 0;
  int words = 0;
  while (start < encoded.size()) {
    size_t end = encoded.find("\r\n ", start);
    const std::string word = encoded.substr(start, end - start);
    EXPECT_LE(word.size(), 75U);
    EXPECT_EQ(word.rfind("=?UTF-8?B?", 0), 0U);
    ++words;
    start = end == std::string::npos ? encoded.size() : end + 3;
  }
  EXPECT_GT(words, 2);
}

TEST(MimeMessageTest, QuotedPrintableKeepsLinesShortAndEncodesWhatItMust) {
  EXPECT_EQ(EncodeQuotedPrintable("a=b\nline \n\u00e9"), "a=3Db\r\nline=20\r\n=C3=A9");
  const std::string qp = EncodeQuotedPrintable(std::string(200, 'x'));
  size_t start = 0;
  while (start < qp.size()) {
    const size_t end = qp.find("\r\n", start);
    EXPECT_LE((end == std::string::npos ? qp.size() : end) - start, 76U);
    start = end == std::string::npos ? qp.size() : end + 2;
  }
}

TEST(MimeMessageTest, BuildsHeadersWithCrlfAndAFoldedSubject) {
  MailParts parts;
  parts.from = "quell <alerts@example.com>";
  parts.to = {"ops@example.com", "Oncall <oncall@example.com>"};
  parts.subject = "disk\nfull";
  parts.body = "line one\n.line two";
  parts.message_id = "<q1-00@quell.invalid>";
  parts.in_reply_to = "<q1-01@quell.invalid>";
  parts.references = "<q1-01@quell.invalid>";
  parts.date = kDay;
  const std::string text = BuildMimeMessage(parts);
  EXPECT_NE(text.find("\r\nSubject: disk full\r\n"), std::string::npos);
  EXPECT_NE(text.find("\r\nTo: ops@example.com,\r\n Oncall <oncall@example.com>\r\n"),
            std::string::npos);
  EXPECT_NE(text.find("\r\nIn-Reply-To: <q1-01@quell.invalid>\r\n"), std::string::npos);
  EXPECT_NE(text.find("Content-Type: text/plain; charset=utf-8\r\n"), std::string::npos);
  EXPECT_NE(text.find("\r\n\r\nline one\r\n.line two\r\n"), std::string::npos);
  EXPECT_EQ(text.find("\n\n"), std::string::npos);  // no bare LF anywhere
  for (size_t i = text.find('\n'); i != std::string::npos; i = text.find('\n', i + 1)) {
    ASSERT_EQ(text[i - 1], '\r') << "bare LF at " << i;
  }
}

TEST(MimeMessageTest, ExtractsEnvelopeAddressesAndRefusesHeaderInjection) {
  EXPECT_EQ(EnvelopeAddress("quell <alerts@example.com>"), "alerts@example.com");
  EXPECT_EQ(EnvelopeAddress(" ops@example.com "), "ops@example.com");
  EXPECT_TRUE(IsSafeHeaderValue("ops@example.com"));
  EXPECT_FALSE(IsSafeHeaderValue("ops@example.com\r\nBcc: x@evil"));
}

TEST(MimeMessageTest, EncodesNonAsciiDisplayNamesOnly) {
  EXPECT_EQ(EncodeMailbox("quell <alerts@example.com>"), "quell <alerts@example.com>");
  EXPECT_EQ(EncodeMailbox("\"Caf\u00e9\" <ops@example.com>"),
            "=?UTF-8?B?Q2Fmw6k=?= <ops@example.com>");
  EXPECT_EQ(EncodeMailbox("ops@example.com"), "ops@example.com");
}

TEST(MessageIdTest, IsStablePerRowAndTheAnchorPerGeneration) {
  EXPECT_EQ(MessageIdFor("q1-abc", "quell.invalid"), "<q1-abc@quell.invalid>");
  const std::string a = ThreadAnchorId("k", 1, "mail", "quell.invalid");
  EXPECT_EQ(a, ThreadAnchorId("k", 1, "mail", "quell.invalid"));
  EXPECT_NE(a, ThreadAnchorId("k", 2, "mail", "quell.invalid"));
  EXPECT_EQ(a.rfind("<q1t-", 0), 0U);
}

TEST(SmtpOutcomeTest, FourHundredsRetryFiveHundredsArePermanent) {
  using Kind = core::SendOutcome::Kind;
  EXPECT_EQ(ClassifySmtp(CURLE_OK, 250), Kind::kSent);
  EXPECT_EQ(ClassifySmtp(CURLE_WEIRD_SERVER_REPLY, 451), Kind::kRetry);
  EXPECT_EQ(ClassifySmtp(CURLE_SEND_ERROR, 421), Kind::kRetry);
  EXPECT_EQ(ClassifySmtp(CURLE_RECV_ERROR, 550), Kind::kPermanent);
  EXPECT_EQ(ClassifySmtp(CURLE_LOGIN_DENIED, 535), Kind::kPermanent);
  EXPECT_EQ(ClassifySmtp(CURLE_COULDNT_CONNECT, 0), Kind::kRetry);
  EXPECT_EQ(ClassifySmtp(CURLE_OPERATION_TIMEDOUT, 0), Kind::kRetry);
  EXPECT_EQ(ClassifySmtp(CURLE_USE_SSL_FAILED, 250), Kind::kPermanent);
  EXPECT_EQ(ClassifySmtp(CURLE_PEER_FAILED_VERIFICATION, 0), Kind::kPermanent);
}

}  // namespace
}  // namespace quell::email
