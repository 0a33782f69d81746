// SPDX-License-Identifier: MIT
#pragma once

#include <stdexcept>
#include <string>

namespace onnxscope {

/// The one exception type of the engine. Its message is meant for the user: it names the file, node,
/// tensor or attribute involved and says what is wrong with it.
class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message)
        : std::runtime_error(message)
    {
    }
};

/// Throws Error(message) when `condition` is false. For checks on user data, never for programming errors.
inline void check(bool condition, const std::string& message)
{
    if (!condition)
        throw Error(message);
}

} // namespace onnxscope
