#include "quell/adapters/infrai/infrai_error_source.h"

#include <simdjson.h>

#include <future>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>

#include "quell/adapters/infrai/envelope.h"
#include "quell/adapters/infrai/field_drift.h"
#include "quell/adapters/infrai/group_parser.h"
#include "quell/adapters/infrai/json_fields.h"
#include "quell/core/text/url.h"

namespace quell::infrai {
namespace {

core::Error Corrupt(std::string message) {
  return core::MakeError(core::ErrorCode::kCorrupt, std::move(message));
}

// One recent event. Infrai's event shape is unknown; `exception` may be a string (the sample
// repos) or an object {type, message, stacktrace} (the docs' curl example).
core::GroupEvent ParseEvent(simdjson::dom::object object) {
  static const std::vector<std::string> kId = {"event_id", "id"};
  static const std::vector<std::string> kAt = {"timestamp", "at", "ts", "received_at"};
  static const std::vector<std::string> kMessage = {"message", "text"};
  core::GroupEvent event;
  if (const auto id = FindField(object, kId)) event.event_id = AsText(*id).value_or("");
  if (const auto at = FindField(object, kAt)) {
    if (auto parsed = AsTime(*at)) event.at = *parsed;
  }
  if (const auto message = FindField(object, kMessage)) {
    event.message = AsText(*message).value_or("");
  }
  simdjson::dom::element exception;
  if (!object["exception"].get(exception)) {
    std::string_view text;
    simdjson::dom::object parts;
    if (!exception.get_string().get(text)) {
      event.exception = std::string(text);
    } else if (!exception.get_object().get(parts)) {
      for (const char* name : {"type", "message", "stacktrace"}) {
        std::string_view part;
        if (parts[name].get_string().get(part)) continue;
        if (!event.exception.empty()) event.exception += name[0] == 's' ? "\n" : ": ";
        event.exception += part;
      }
    }
  }
  return event;
}

}  // namespace

InfraiErrorSource::InfraiErrorSource(const InfraiClient& client) : client_(client) {}

core::GroupListing InfraiErrorSource::List() {
  std::vector<core::ErrorGroup> groups;
  core::GroupListing listing = WalkPages([&groups](std::span<const core::ErrorGroup> page) {
    groups.insert(groups.end(), page.begin(), page.end());
  });
  listing.groups = std::move(groups);
  return listing;
}

core::GroupListing InfraiErrorSource::WalkPages(
    const std::function<void(std::span<const core::ErrorGroup>)>& page) {
  const InfraiOptions& options = client_.options();
  core::GroupListing listing;
  std::vector<core::ErrorGroup> page_groups;  // one page's, the vector reused page after page
  simdjson::dom::parser parser;
  std::set<std::string> cursors_seen;
  const auto fail = [&listing](core::Error error) {
    listing.complete = false;
    listing.error = std::move(error);
    return std::move(listing);
  };
  const auto fetch = [this, &options](const std::string& cursor) {
    QueryParams query;
    if (options.page_size > 0) query.emplace_back("limit", std::to_string(options.page_size));
    if (!cursor.empty()) query.emplace_back("cursor", cursor);
    return client_.Get(options.groups_path, query);
  };

  // The next page is requested before this one is handed over, so the server prepares it
  // while the caller observes and commits this one.
  std::future<core::Result<core::HttpResponse>> next_page =
      std::async(std::launch::deferred, fetch, std::string());
  while (true) {
    const std::string what =
        "GET " + options.groups_path + " (page " + std::to_string(listing.pages + 1) + ")";
    auto response = next_page.get();
    if (!response) return fail(core::MakeError(response.error().code, response.error().message));
    auto data = OpenEnvelope(parser, *response, what);
    if (!data) return fail(data.error());

    const auto groups = FindField(*data, options.fields.groups);
    simdjson::dom::array array;
    if (!groups || groups->get_array().get(array)) {
      return fail(Corrupt(what + ": data has no array of groups (tried " +
                          options.fields.groups.front() + "); map it in infrai.fields.groups"));
    }
    if (auto drift = CheckFieldDrift(array, options.fields, options.fields_read, what); !drift) {
      return fail(drift.error());
    }
    size_t index = 0;
    page_groups.clear();
    for (const simdjson::dom::element item : array) {
      simdjson::dom::object object;
      const std::string where =
          what + ": data." + options.fields.groups.front() + "[" + std::to_string(index++) + "]";
      if (item.get_object().get(object)) return fail(Corrupt(where + ": not an object"));
      core::ErrorGroup group;
      if (auto parsed = ParseGroup(object, options.fields, options.extra_fields, where, group);
          !parsed) {
        return fail(parsed.error());
      }
      page_groups.push_back(std::move(group));
    }
    ++listing.pages;

    // Where the walk goes next, read before the page is handed over (the parser's document
    // is not touched after that).
    std::optional<core::Error> stop;
    std::optional<std::string> next_text;
    if (const auto next = FindField(*data, options.fields.next_cursor)) {
      next_text = AsText(*next);
      if (!next_text) stop = Corrupt(what + ": next_cursor is not a string");
    }
    // An absent, null or empty cursor ends the walk.
    const bool done = !stop && (!next_text || next_text->empty());
    std::string cursor;
    if (!done && !stop) {
      if (!cursors_seen.insert(*next_text).second) {
        stop = Corrupt(what + ": the server repeated cursor \"" + *next_text + "\"");
      } else if (listing.pages >= options.max_pages) {
        stop = Corrupt("GET " + options.groups_path + ": more than " +
                       std::to_string(options.max_pages) +
                       " pages; raise infrai.max_pages if that is expected");
      } else {
        cursor = std::move(*next_text);
      }
    }
    if (!done && !stop) next_page = std::async(std::launch::async, fetch, cursor);
    page(page_groups);
    if (stop) return fail(std::move(*stop));
    if (done) break;
  }
  listing.complete = true;
  return listing;
}

core::Result<core::GroupDetail> InfraiErrorSource::Detail(std::string_view group_id) {
  const InfraiOptions& options = client_.options();
  const std::string path = "/v1/errors/group_detail/" + core::UrlEncode(group_id);
  const std::string what = "GET /v1/errors/group_detail/{" + std::string(group_id) + "}";
  auto response = client_.Get(path, {});
  if (!response) return response.error();
  simdjson::dom::parser parser;
  auto data = OpenEnvelope(parser, *response, what);
  if (!data) return data.error();

  core::GroupDetail detail;
  // The detail may be the group itself or wrap it in "group".
  simdjson::dom::object group = *data;
  simdjson::dom::object wrapped;
  if (!(*data)["group"].get_object().get(wrapped)) group = wrapped;
  if (auto parsed = ParseGroup(group, options.fields, options.extra_fields, what, detail.group);
      !parsed) {
    return parsed.error();
  }
  simdjson::dom::array events;
  if (!(*data)["events"].get_array().get(events)) {
    for (const simdjson::dom::element item : events) {
      simdjson::dom::object object;
      if (!item.get_object().get(object)) detail.events.push_back(ParseEvent(object));
    }
  }
  if (detail.events.empty()) {
    for (const char* name : {"latest_event", "representative_event"}) {
      simdjson::dom::object object;
      if (!(*data)[name].get_object().get(object)) {
        detail.events.push_back(ParseEvent(object));
        break;
      }
    }
  }
  return detail;
}

}  // namespace quell::infrai
