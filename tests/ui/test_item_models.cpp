// SPDX-License-Identifier: MIT
// The UI's item models under QAbstractItemModelTester, with the data they adapt checked cell by cell.
#include "engine/model/model.h"
#include "ui/graphview/graph_search.h"
#include "ui/mainwindow/problems_model.h"
#include "ui/nodeinspector/inspector_content.h"
#include "ui/nodeinspector/property_tree_model.h"
#include "ui/tensorinspector/tensor_table_model.h"

#include <QAbstractItemModelTester>
#include <QtTest>

using namespace onnxscope;

class TestItemModels : public QObject {
    Q_OBJECT
private slots:
    void tensorTableSlicesLeadingAxes()
    {
        TensorTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        std::vector<float> values(2 * 3 * 4);
        for (size_t i = 0; i < values.size(); ++i)
            values[i] = static_cast<float>(i) * 0.5f;
        model.setTensor(Tensor::fromVector(values, { 2, 3, 4 }));
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), 4);
        QCOMPARE(model.slice(), std::vector<int64_t> { 0 });
        QCOMPARE(model.index(1, 2).data().toString(), QStringLiteral("3"));
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setSlice({ 1 });
        QCOMPARE(changed.size(), 1);
        QCOMPARE(model.index(1, 2).data(TensorTableModel::ValueRole).toDouble(), (12 + 4 + 2) * 0.5);
        model.setSlice({ 7 }); // clamped to the axis
        QCOMPARE(model.slice(), std::vector<int64_t> { 1 });

        model.setTensor(Tensor::vector1D<int64_t>({ 5, -7, 9 }));
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), 1);
        QCOMPARE(model.index(1, 0).data().toString(), QStringLiteral("-7"));
        model.setTensor(Tensor::scalar<double>(2.25));
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("2.25"));
        model.setTensor(Tensor::fromVector<float>({ 1.0f, std::numeric_limits<float>::quiet_NaN() }, { 1, 2 }));
        QCOMPARE(model.index(0, 1).data().toString(), QStringLiteral("NaN"));
        QVERIFY(model.index(0, 1).data(Qt::ForegroundRole).isValid());
        model.setTensor(Tensor(DataType::Float, { 0, 3 }));
        QCOMPARE(model.rowCount(), 0);
        model.setTensor({});
        QCOMPARE(model.rowCount(), 0);
    }

    void propertyTreeDescribesNodeAndValue()
    {
        auto model = Model::fromText(R"(
            <ir_version: 8, opset_import: ["" : 17]>
            g (float[1,3,8,8] x) => (float[1,3,4,4] y) {
                y = MaxPool <kernel_shape = [2, 2], strides = [2, 2], auto_pad = "VALID"> (x)
            })");
        PropertyTreeModel tree;
        QAbstractItemModelTester tester(&tree, QAbstractItemModelTester::FailureReportingMode::QtTest);
        tree.setSections(describeNode(model->graph(), 0, nullptr));
        QCOMPARE(tree.rowCount(), 4); // Node, Attributes, Inputs, Outputs
        const QModelIndex attributes = tree.index(1, 0);
        QCOMPARE(attributes.data().toString(), QStringLiteral("Attributes"));
        QCOMPARE(tree.rowCount(attributes), 3);
        QCOMPARE(tree.find(QStringLiteral("Attributes"), QStringLiteral("kernel_shape"))
                     .siblingAtColumn(1)
                     .data()
                     .toString(),
            QStringLiteral("[2, 2]"));
        QCOMPARE(
            tree.find(QStringLiteral("Attributes"), QStringLiteral("auto_pad")).siblingAtColumn(1).data().toString(),
            QStringLiteral("\"VALID\""));
        QCOMPARE(tree.find(QStringLiteral("Outputs"), QStringLiteral("Y")).siblingAtColumn(2).data().toString(),
            QStringLiteral("float[1, 3, 4, 4]"));
        QCOMPARE(tree.find(QStringLiteral("Inputs"), QStringLiteral("X")).data(PropertyTreeModel::ValueRefRole).toInt(),
            model->graph().findValue("x"));
        QCOMPARE(tree.parent(tree.find(QStringLiteral("Inputs"), QStringLiteral("X"))), tree.index(2, 0));

        tree.setSections(describeValue(model->graph(), model->graph().findValue("y"), nullptr));
        QCOMPARE(tree.find(QStringLiteral("Producer"), QStringLiteral("MaxPool"))
                     .data(PropertyTreeModel::NodeRefRole)
                     .toInt(),
            0);
        QVERIFY(tree.find(QStringLiteral("Consumers"), QStringLiteral("graph output")).isValid());
        tree.setSections({});
        QCOMPARE(tree.rowCount(), 0);
    }

    void searchFindsNodesOpsAndTensorsInSubgraphs()
    {
        auto model = Model::fromText(R"(
            <ir_version: 8, opset_import: ["" : 17]>
            g (float[4] x, bool c) => (float[4] y) {
                r = Relu (x)
                y = If (c) <then_branch = t () => (float[4] a) { a = Abs(r) }, else_branch = e () => (float[4] b) { b = Relu(r) }>
            })");
        const auto results = searchGraph(model->graph(), QStringLiteral("relu"));
        // The Relu node, and the Relu inside else_branch; no tensor is called relu.
        QCOMPARE(results.size(), size_t(2));
        QCOMPARE(results[0].graph, &model->graph());
        QVERIFY(results[1].graph != &model->graph());
        QVERIFY(results[1].detail.contains(QStringLiteral("If_1")));
        SearchResultsModel list;
        QAbstractItemModelTester tester(&list, QAbstractItemModelTester::FailureReportingMode::QtTest);
        list.setResults(searchGraph(model->graph(), QStringLiteral("r")));
        QVERIFY(list.rowCount() >= 3); // Relu nodes, tensor r, ...
        // An exact tensor-name match comes first.
        QCOMPARE(list.results().front().value, model->graph().findValue("r"));
        list.setResults({});
        QCOMPARE(list.rowCount(), 0);
        QVERIFY(searchGraph(model->graph(), QStringLiteral("   ")).empty());
    }

    void problemsModelColumns()
    {
        ProblemsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setDiagnostics({ { Diagnostic::Severity::Error, "checker", "bad\nthing" },
            { Diagnostic::Severity::Warning, "shape inference", "w" } });
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(0, ProblemsModel::SeverityColumn).data().toString(), QStringLiteral("error"));
        QCOMPARE(model.index(0, ProblemsModel::MessageColumn).data().toString(), QStringLiteral("bad thing"));
        QCOMPARE(model.index(1, ProblemsModel::SourceColumn).data().toString(), QStringLiteral("shape inference"));
        model.setDiagnostics({});
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_MAIN(TestItemModels)
#include "test_item_models.moc"
