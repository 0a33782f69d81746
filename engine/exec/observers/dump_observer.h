// SPDX-License-Identifier: MIT
#pragma once

#include "engine/exec/session.h"
#include "engine/io/value_writer.h"

#include <set>
#include <string>

namespace onnxscope {

/// Writes every node output through a ValueWriter as it is produced (`onnxscope-cli run --dump-all`), at any depth:
/// kind "output" for the main graph's outputs, "intermediate" for the rest. Absent outputs are skipped.
class DumpObserver : public SessionObserver {
public:
    explicit DumpObserver(ValueWriter& writer)
        : m_writer(writer)
    {
    }
    void afterNode(const NodeEvent& e) override;
    bool wantsTiming() const override { return false; }
    /// Names of the main graph's outputs written so far.
    const std::set<std::string>& mainOutputsWritten() const { return m_mainOutputsWritten; }

private:
    ValueWriter& m_writer;
    std::set<std::string> m_mainOutputsWritten;
};

} // namespace onnxscope
