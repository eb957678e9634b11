#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <utility>

#include "quell/core/ports/store.h"
#include "test_support.h"

namespace quell::testing {

// The fixture of every store contract suite, parameterised on the backend: skips (fails under
// CI) when the backend has no server, else a fresh empty store opened once as store_. A suite's
// own set-up goes in SetUpStore, which runs only once store_ is open.
class StoreTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() final {
    QUELL_REQUIRE_BACKEND(GetParam());
    test_store_ = std::make_unique<TestStore>(GetParam());
    auto store = test_store_->Open();
    ASSERT_TRUE(store.ok()) << store.error().message;
    store_.emplace(std::move(*store));
    SetUpStore();
  }
  virtual void SetUpStore() {}

  // Another connection to the same store, as a second process (a dispatcher) would hold it.
  void Connect(std::optional<core::Store>& connection) const {
    auto store = test_store_->Open();
    ASSERT_TRUE(store.ok()) << store.error().message;
    connection.emplace(std::move(*store));
  }

  std::unique_ptr<TestStore> test_store_;
  std::optional<core::Store> store_;
};

}  // namespace quell::testing
