#pragma once
// Process-wide ACL session for the conformance suite (aclInit, device 0, one
// stream) and the error-message assertions every failing case shares.

#include <string>

#include "acl/acl.h"

namespace conformance {

// The stream created by the global test environment.
aclrtStream testStream();

// Drops any message left behind by earlier calls.
void clearErrorMessages();

// Asserts that a failure left a non-empty message which the read cleared.
// Returns the message (empty if there was none).
std::string expectErrorMessageRecorded();

}  // namespace conformance
