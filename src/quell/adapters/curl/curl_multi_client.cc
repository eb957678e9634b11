#include "quell/adapters/curl/curl_multi_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <array>
#include <deque>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "quell/adapters/curl/easy_handle_pool.h"
#include "quell/adapters/curl/header_list.h"
#include "quell/adapters/curl/response_collector.h"
#include "quell/adapters/curl/transfer_options.h"

namespace quell::curl {
namespace {

using core::ErrorCode;

// Long enough that an idle batch does not spin, short enough to notice a libcurl timer that
// curl_multi_poll was not told about.
constexpr int kPollTimeoutMs = 1000;

// One running exchange. Removing the handle from the multi before anything else is freed keeps
// libcurl from touching the headers, the collector or the error buffer after they are gone.
struct Transfer {
  Transfer(CURLM* m, EasyHandlePool& pool, size_t i, uint32_t l, size_t max_body)
      : multi(m), handle(pool), index(i), lane(l), collector(max_body) {}
  ~Transfer() {
    if (added) curl_multi_remove_handle(multi, handle.get());
  }
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;

  CURLM* multi;
  PooledHandle handle;  // declared before the rest: released to the pool last
  size_t index;
  uint32_t lane;
  HeaderList headers;
  ResponseCollector collector;
  std::array<char, CURL_ERROR_SIZE> error_buffer{};
  bool added = false;
};

}  // namespace

struct CurlMultiClient::Multi {
  CURLM* handle = nullptr;
  ~Multi() {
    if (handle != nullptr) curl_multi_cleanup(handle);
  }
};

CurlMultiClient::CurlMultiClient(CurlOptions options)
    : options_(std::move(options)),
      pool_(std::make_unique<EasyHandlePool>(options_.max_idle_handles)),
      multi_(std::make_unique<Multi>()) {}

CurlMultiClient::~CurlMultiClient() {
  // The multi handle goes first: pooled easy handles may still be linked to its cache.
  multi_.reset();
  pool_.reset();
}

void CurlMultiClient::SendAll(
    std::span<const core::HttpExchange> exchanges, std::span<const uint32_t> lane_limits,
    const std::function<void(size_t index, core::Result<core::HttpResponse> result)>& done) {
  const auto fail_all = [&](const std::string& why) {
    for (size_t i = 0; i < exchanges.size(); ++i) {
      done(i, core::MakeError(ErrorCode::kInternal, WithLabel(exchanges[i].request, why)));
    }
  };
  if (const CURLcode rc = GlobalInit(); rc != CURLE_OK) return fail_all(curl_easy_strerror(rc));
  if (multi_->handle == nullptr) {
    multi_->handle = curl_multi_init();
    if (multi_->handle == nullptr) return fail_all("curl_multi_init failed");
  }
  CURLM* const multi = multi_->handle;
  // Connections stay open between batches in the multi's cache: room for every lane's full
  // concurrency, so a steady stream of batches reconnects nothing.
  size_t cache = std::max<size_t>(options_.max_idle_handles, 1);
  for (const uint32_t limit : lane_limits) cache += limit;
  curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, static_cast<long>(cache));

  // Requests waiting for a slot, per lane, in the order given.
  std::unordered_map<uint32_t, std::deque<size_t>> waiting;
  for (size_t i = 0; i < exchanges.size(); ++i) {
    const core::HttpRequest& request = exchanges[i].request;
    if (core::Status method = CheckMethod(request); !method.ok()) {
      done(i, method.error());
      continue;
    }
    waiting[exchanges[i].lane].push_back(i);
  }
  const auto limit_of = [&](uint32_t lane) -> size_t {
    return lane < lane_limits.size() ? std::max<uint32_t>(lane_limits[lane], 1) : 1;
  };
  std::unordered_map<uint32_t, size_t> in_flight;
  std::unordered_map<CURL*, std::unique_ptr<Transfer>> running;

  // Starts waiting requests of `lane` while it has free slots; a request that cannot start is
  // reported at once and its slot goes to the next.
  const auto fill = [&](uint32_t lane) {
    std::deque<size_t>& queue = waiting[lane];
    while (!queue.empty() && in_flight[lane] < limit_of(lane)) {
      const size_t index = queue.front();
      queue.pop_front();
      const core::HttpRequest& request = exchanges[index].request;
      auto transfer =
          std::make_unique<Transfer>(multi, *pool_, index, lane, options_.max_body_bytes);
      if (transfer->handle.get() == nullptr) {
        done(index,
             core::MakeError(ErrorCode::kInternal, WithLabel(request, "curl_easy_init failed")));
        continue;
      }
      core::Result<HeaderList> headers = BuildHeaderList(request.headers, !request.body.empty());
      if (!headers.ok()) {
        done(index,
             core::MakeError(headers.error().code, WithLabel(request, headers.error().message)));
        continue;
      }
      transfer->headers = std::move(*headers);
      CURL* const h = transfer->handle.get();
      CURLcode rc =
          Configure(h, request, options_, transfer->headers.get(), transfer->error_buffer.data());
      if (rc == CURLE_OK) rc = transfer->collector.Attach(h);
      if (rc != CURLE_OK) {
        done(index, core::MakeError(ErrorCode::kInternal,
                                    WithLabel(request, std::string("cannot configure libcurl: ") +
                                                           curl_easy_strerror(rc))));
        continue;
      }
      if (const CURLMcode mc = curl_multi_add_handle(multi, h); mc != CURLM_OK) {
        done(index,
             core::MakeError(ErrorCode::kInternal, WithLabel(request, curl_multi_strerror(mc))));
        continue;
      }
      transfer->added = true;
      ++in_flight[lane];
      running.emplace(h, std::move(transfer));
    }
  };
  for (auto& [lane, queue] : waiting) fill(lane);

  while (!running.empty()) {
    int still_running = 0;
    CURLMcode mc = curl_multi_perform(multi, &still_running);
    int messages = 0;
    while (CURLMsg* message = curl_multi_info_read(multi, &messages)) {
      if (message->msg != CURLMSG_DONE) continue;
      const auto it = running.find(message->easy_handle);
      if (it == running.end()) continue;
      std::unique_ptr<Transfer> transfer = std::move(it->second);
      running.erase(it);
      const CURLcode rc = message->data.result;
      const core::HttpRequest& request = exchanges[transfer->index].request;
      core::Result<core::HttpResponse> result =
          FinishTransfer(transfer->handle.get(), rc, request, transfer->collector,
                         transfer->error_buffer.data(), options_.max_body_bytes);
      const size_t index = transfer->index;
      const uint32_t lane = transfer->lane;
      transfer.reset();  // back to the pool (and its connection to the cache) before `done`
      --in_flight[lane];
      done(index, std::move(result));
      fill(lane);
    }
    if (running.empty()) break;
    if (mc == CURLM_OK) mc = curl_multi_poll(multi, nullptr, 0, kPollTimeoutMs, nullptr);
    if (mc != CURLM_OK) {
      // The multi handle itself failed (out of memory): nothing more can run on it.
      const std::string why = curl_multi_strerror(mc);
      std::vector<std::unique_ptr<Transfer>> failed;
      failed.reserve(running.size());
      for (auto& [h, transfer] : running) failed.push_back(std::move(transfer));
      running.clear();
      for (auto& transfer : failed) {
        const size_t index = transfer->index;
        transfer.reset();
        done(index,
             core::MakeError(ErrorCode::kInternal, WithLabel(exchanges[index].request, why)));
      }
      for (auto& [lane, queue] : waiting) {
        for (const size_t index : queue) {
          done(index,
               core::MakeError(ErrorCode::kInternal, WithLabel(exchanges[index].request, why)));
        }
        queue.clear();
      }
      curl_multi_cleanup(multi);
      multi_->handle = nullptr;
      return;
    }
  }
}

}  // namespace quell::curl
