#include "quell/adapters/inputs/observation_body.h"

#include <simdjson.h>

#include <string>
#include <utility>

namespace quell::inputs {
namespace {

core::Error Invalid(std::string message) {
  return core::MakeError(core::ErrorCode::kInvalidArgument, std::move(message));
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view Trim(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  return text;
}

// Parses records one by one into `out`, each copied into a buffer with the padding the
// parser reads past a record's end.
class Records {
 public:
  Records(const ObservationBodyOptions& options, std::vector<core::Observation>& out)
      : options_(options), parser_(options.parser), out_(out) {}

  core::Status Add(std::string_view record, std::string_view where = {}) {
    const size_t index = out_.size();
    if (index >= options_.max_observations) {
      return Invalid("observations: more than " + std::to_string(options_.max_observations) +
                     " in one request");
    }
    buffer_.assign(record);
    buffer_.resize(record.size() + jsonl::ObservationParser::kPadding, ' ');
    core::Observation observation;
    if (auto status = parser_.Parse(std::string_view(buffer_.data(), record.size()), buffer_.size(),
                                    observation);
        !status) {
      return Invalid("observations[" + std::to_string(index) + "]" + std::string(where) + ": " +
                     status.error().message);
    }
    out_.push_back(std::move(observation));
    return {};
  }

 private:
  const ObservationBodyOptions& options_;
  jsonl::ObservationParser parser_;
  std::vector<core::Observation>& out_;
  std::string buffer_;
};

}  // namespace

core::Result<std::vector<core::Observation>> ParseObservationBody(
    std::string_view body, const ObservationBodyOptions& options) {
  std::vector<core::Observation> out;
  Records records(options, out);
  const std::string_view trimmed = Trim(body);
  if (trimmed.empty()) return Invalid("observations: the body is empty");
  if (trimmed.front() == '[') {
    const simdjson::padded_string padded(trimmed);
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (auto error = parser.parse(padded).get(root)) {
      return Invalid(std::string("observations: bad JSON: ") + simdjson::error_message(error));
    }
    simdjson::dom::array array;
    if (root.get_array().get(array)) return Invalid("observations: must be a JSON array");
    for (const simdjson::dom::element element : array) {
      const std::string record = simdjson::minify(element);
      if (auto status = records.Add(record); !status) return status.error();
    }
    return out;
  }
  // One object, possibly spread over several lines; otherwise JSON Lines.
  {
    const simdjson::padded_string padded(trimmed);
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (!parser.parse(padded).get(root) && root.is_object()) {
      if (auto status = records.Add(trimmed); !status) return status.error();
      return out;
    }
  }
  size_t line_number = 0;
  size_t start = 0;
  while (start <= body.size()) {
    size_t end = body.find('\n', start);
    if (end == std::string_view::npos) end = body.size();
    ++line_number;
    const std::string_view line = Trim(body.substr(start, end - start));
    if (!line.empty()) {
      if (auto status = records.Add(line, " (line " + std::to_string(line_number) + ")"); !status) {
        return status.error();
      }
    }
    start = end + 1;
  }
  return out;
}

}  // namespace quell::inputs
