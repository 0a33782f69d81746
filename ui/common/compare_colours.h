// SPDX-License-Identifier: MIT
#pragma once

#include "engine/compare/run_comparison.h"

#include <QColor>
#include <QWidget>

namespace onnxscope {

/// What the graph's error colours show.
enum class ErrorMetric {
    ToleranceRatio, // max |a - b| / (atol + rtol |b|): 1 is the tolerance, so green always means "matches"
    MaxAbsError,
    MaxRelError,
};

/// Error colours: green through amber to red on a log scale, purple where the error cannot be measured (NaN/Inf
/// differ, shape or kind mismatch), grey where there is nothing to compare.
namespace CompareColours {
/// Position in [0, 1] of an error on the log scale of `metric`: ratio 1e-3 -> 0, 1 -> 0.5, 1e3 -> 1; abs and rel
/// errors 1e-8 -> 0, 1 -> 1. Zero is 0.
double scalePosition(double error, ErrorMetric metric);
/// Green (0) through amber (0.5) to red (1), as `onnxscope-cli compare --node-data` colours Model Explorer. For the
/// tolerance ratio the colour jumps at the tolerance (0.5): green to lime within it, amber to red beyond.
QColor gradient(double t, ErrorMetric metric = ErrorMetric::ToleranceRatio);
QColor unmeasurable(); // purple
QColor unmatched(); // grey
/// The colour of a node or value with this status and these errors.
QColor forStatus(
    CompareStatus status, double toleranceRatio, double maxAbs, double maxRel, bool nonFinite, ErrorMetric metric);
QColor forNode(const NodeCompare& node, const ComparisonResult& result, ErrorMetric metric);
QColor forRow(const CompareRow& row, ErrorMetric metric);
/// Labels of the scale's ends and middle.
QString lowLabel(ErrorMetric metric);
QString midLabel(ErrorMetric metric);
QString highLabel(ErrorMetric metric);
QString metricName(ErrorMetric metric);
/// "match", "mismatch", "shape mismatch", "only in A", ...
QString statusLabel(CompareStatus status);
/// An error or tolerance with 3 significant digits; "nan" / "inf" for non-finite values.
QString errorText(double v);
/// A side's description shortened for labels: the file name when it names an existing file, else as it is.
QString sideName(const QString& description);
}

/// The legend drawn over the graph while a comparison is shown: the gradient with its scale, the colours for "cannot
/// be measured" and "no counterpart", and the first-divergence tag.
class CompareLegend : public QWidget {
    Q_OBJECT
public:
    explicit CompareLegend(QWidget* parent = nullptr);
    void setMetric(ErrorMetric metric);
    ErrorMetric metric() const { return m_metric; }
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    ErrorMetric m_metric = ErrorMetric::ToleranceRatio;
};

} // namespace onnxscope
