// SPDX-License-Identifier: MIT
#include "ui/precision/precision_decorations.h"

#include "ui/precision/precision_model.h"

#include <QStringList>

#include <map>

namespace onnxscope {

void decoratePrecision(GraphDecorations& graph, const PrecisionResult* result)
{
    const int boxes = graph.boxCount();
    const Graph* drawn = graph.drawnGraph();
    if (!result || !drawn) {
        for (int i = 0; i < boxes; ++i)
            graph.setRiskMark(i, {});
        return;
    }
    std::map<int, PrecisionRisk> worst;
    std::map<int, QStringList> notes;
    for (const PrecisionNode& node : result->report.keep) {
        if (node.graph != drawn)
            continue;
        const int box = graph.boxOfNode(node.nodeId);
        if (box < 0)
            continue;
        const PrecisionRisk risk = precisionRisk(node);
        auto it = worst.find(box);
        if (it == worst.end() || risk < it->second)
            worst[box] = risk;
        QStringList reasons;
        for (const auto& r : node.reasons)
            reasons << QString::fromStdString(r);
        notes[box] << QStringLiteral("Keep %1 in float32: %2")
                          .arg(QString::fromStdString(node.displayName), reasons.join(QStringLiteral("; ")));
    }
    const QString type = QString::fromStdString(std::string(dataTypeName(result->report.target.type)));
    for (int i = 0; i < boxes; ++i) {
        const GraphDecorations::Box box = graph.box(i);
        if (box.kind != GraphDecorations::Box::Kind::Node && box.kind != GraphDecorations::Box::Kind::Group) {
            graph.setRiskMark(i, {});
            continue;
        }
        auto it = worst.find(i);
        if (it == worst.end()) {
            graph.setRiskMark(i,
                { precisionRiskColour(PrecisionRisk::Fine),
                    QStringLiteral("Precision (%1): fine, no value here overflows or mostly flushes to zero")
                        .arg(type) });
            continue;
        }
        graph.setRiskMark(i,
            { precisionRiskColour(it->second),
                QStringLiteral("Precision (%1): %2\n%3")
                    .arg(type, precisionRiskName(it->second, result->report.target),
                        notes[i].join(QLatin1Char('\n'))) });
    }
}

} // namespace onnxscope
