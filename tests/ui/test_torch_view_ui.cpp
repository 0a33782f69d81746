// SPDX-License-Identifier: MIT
// Issue #44 in the GUI on the committed dynamo export of a tiny Gemma-3 decoder (tests/models/torch): the module view,
// the inspector's PyTorch section, search by module path, unparsable metadata in Problems, the Inputs dock's rules,
// and Extract as Test Case.
#include "engine/compare/backend_case.h"
#include "engine/model/torch_origin.h"
#include "tests/common/test_settings.h"
#include "ui/common/model_document.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_search.h"
#include "ui/graphview/graph_view.h"
#include "ui/graphview/node_item.h"
#include "ui/inputeditor/inputs_panel.h"
#include "ui/mainwindow/debugger_ui.h"
#include "ui/mainwindow/extract_ui.h"
#include "ui/mainwindow/main_window.h"
#include "ui/mainwindow/problems_model.h"
#include "ui/nodeinspector/node_inspector.h"
#include "ui/nodeinspector/property_tree_model.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace onnxscope;

namespace {
const QString kModel = QStringLiteral(ONNXSCOPE_SOURCE_DIR "/tests/models/torch/gemma3_tiny_dynamo.onnx");
}

class TestTorchViewUi : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_settingsDir;
    std::unique_ptr<MainWindow> m_window;
    DebuggerUi* m_debugger = nullptr;
    ExtractUi* m_extract = nullptr;
    QStringList m_errors;

    bool open(const QString& path)
    {
        QSignalSpy opened(m_window.get(), &MainWindow::modelOpened);
        m_window->openModel(path);
        if (!opened.wait(20000))
            return false;
        GraphView* view = m_window->graphView();
        return QTest::qWaitFor(
            [&] {
                return !m_window->document()->isLoading() && m_window->document()->typesReady()
                    && !view->isLayoutRunning();
            },
            20000);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_settingsDir.isValid());
        onnxscope::testing::useOwnSettings(m_settingsDir.path(), QStringLiteral("onnxscope-torch-tests"));
    }

    void init()
    {
        m_errors.clear();
        m_window = std::make_unique<MainWindow>();
        m_window->setErrorReporter([this](const QString&, const QString& message) { m_errors << message; });
        m_debugger = new DebuggerUi(m_window.get());
        m_extract = new ExtractUi(m_window.get(), m_debugger->inputs());
        m_window->resize(1400, 900);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void cleanup() { m_window.reset(); }

    void groupsByModule()
    {
        QVERIFY(open(kModel));
        const ScopeTree* tree = m_window->graphView()->scopeTree();
        QVERIFY(tree);
        int layers = 0;
        for (size_t s = 1; s < tree->scopes.size(); ++s) {
            const auto& scope = tree->scopes[s];
            if (scope.modulePath.startsWith(QStringLiteral("inner.model.layers."))
                && !scope.modulePath.mid(19).contains(QLatin1Char('.'))) {
                ++layers;
                QCOMPARE(scope.title(), scope.name + QStringLiteral(" \u00b7 Gemma3DecoderLayer"));
                QVERIFY(scope.name.startsWith(QStringLiteral("layers.")));
                QVERIFY2(scope.collapsedByDefault, qPrintable(scope.name)); // 363 nodes: numbered siblings start closed
                QCOMPARE(tree->path(static_cast<int>(s)), scope.modulePath);
            }
        }
        QCOMPARE(layers, 4);
        // The collapsed layers are boxes titled by module and class.
        int boxes = 0;
        for (NodeItem* item : m_window->graphView()->scene()->nodeItems())
            if (item->viewItem().kind == ViewItem::Kind::Group
                && item->viewItem().title.endsWith(QStringLiteral(" \u00b7 Gemma3DecoderLayer")))
                ++boxes;
        QCOMPARE(boxes, 4);
    }

    void inspectorAndSearch()
    {
        QVERIFY(open(kModel));
        const Graph& graph = m_window->document()->model()->graph();
        const auto found = searchGraph(graph, QStringLiteral("layers.2.self_attn.q_proj"));
        QVERIFY(!found.empty());
        for (const auto& r : found)
            QVERIFY(QString::fromStdString(torchOrigin(graph.node(r.node)).modulePath())
                        .contains(QStringLiteral("layers.2.self_attn.q_proj")));
        const NodeId node = found.front().node;
        m_window->inspector()->showNode(&graph, node);
        PropertyTreeModel* model = m_window->inspector()->model();
        const QModelIndex module = model->find(QStringLiteral("PyTorch"), QStringLiteral("module"));
        QVERIFY(module.isValid());
        QCOMPARE(model->index(module.row(), PropertyTreeModel::ValueColumn, module.parent()).data().toString(),
            QStringLiteral("inner.model.layers.2.self_attn.q_proj"));
        QCOMPARE(m_window->inspector()->copyRow(module), QStringLiteral("inner.model.layers.2.self_attn.q_proj"));
        const QModelIndex source = model->find(QStringLiteral("PyTorch"), QStringLiteral("source"));
        QVERIFY(source.isValid());
        const PropertyRow* row = model->row(source);
        const TorchOrigin origin = torchOrigin(graph.node(node));
        const SourceFrame* frame = origin.sourceFrame();
        QVERIFY(frame);
        QCOMPARE(row->sourceFile, QString::fromStdString(frame->file));
        QCOMPARE(row->sourceLine, frame->line);
        QCOMPARE(
            m_window->inspector()->copyRow(source), QStringLiteral("%1:%2").arg(row->sourceFile).arg(row->sourceLine));
        QVERIFY(model->find(QStringLiteral("PyTorch"), QStringLiteral("class hierarchy")).isValid());
        QVERIFY(model->find(QStringLiteral("PyTorch"), QStringLiteral("FX node")).isValid());
    }

    void inputRules()
    {
        QVERIFY(open(kModel));
        InputsPanel* inputs = m_debugger->inputs();
        QCOMPARE(inputs->spec(QStringLiteral("attention_mask")).source, InputSpec::Source::Ones);
        QVERIFY(inputs->ruleFor(QStringLiteral("attention_mask")).contains(QStringLiteral("attention mask")));
        const InputSpec ids = inputs->spec(QStringLiteral("input_ids"));
        QCOMPARE(ids.source, InputSpec::Source::Uniform);
        QCOMPARE(ids.high, 256.0); // the rows of the embedding table
        QVERIFY(inputs->ruleFor(QStringLiteral("input_ids")).contains(QStringLiteral("[0, 256)")));
    }

    void extractAsTestCase()
    {
        QVERIFY(open(kModel));
        const Graph& graph = m_window->document()->model()->graph();
        NodeId softmax = -1;
        for (const Node& n : graph.nodes())
            if (n.opType == "Softmax" && softmax < 0)
                softmax = n.id;
        QVERIFY(softmax >= 0);
        QTemporaryDir work;
        const QString folder = work.filePath(QStringLiteral("case"));
        QSignalSpy done(m_extract, &ExtractUi::finished);
        QSignalSpy failed(m_extract, &ExtractUi::failed);
        QVERIFY(m_window->graphView()->extraNodeActions().contains(m_extract->extractAction()));
        QVERIFY(m_extract->extractNode(softmax, folder));
        QVERIFY(QTest::qWaitFor([&] { return done.count() + failed.count() > 0; }, 30000));
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.front().front().toString()));
        const BackendCaseResult result = runBackendCase(folder.toStdString());
        QVERIFY2(result.status == BackendCaseResult::Status::Passed, result.message.c_str());
    }

    void unparsableMetadataIsAProblem()
    {
        // A copy whose first node's name_scopes lacks its closing bracket: the string is patched in place in the file's
        // bytes, at the same length, so the protobuf stays valid.
        QFile in(kModel);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray bytes = in.readAll();
        const QByteArray good = "['', 'inner', 'inner.model', 'inner.model.embed_tokens', 'embedding']";
        const qsizetype at = bytes.indexOf(good);
        QVERIFY(at >= 0);
        QByteArray bad = good;
        bad[bad.size() - 1] = ' '; // no closing bracket
        bytes.replace(at, good.size(), bad);
        QTemporaryDir work;
        QFile out(work.filePath(QStringLiteral("broken.onnx")));
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(bytes);
        out.close();
        QVERIFY(open(out.fileName()));
        QVERIFY(QTest::qWaitFor([&] { return m_window->document()->diagnosticsReady(); }, 60000));
        bool warned = false;
        for (const Diagnostic& d : m_window->problemsModel()->diagnostics())
            warned = warned
                || (d.source == "torch metadata" && d.severity == Diagnostic::Severity::Warning
                    && d.message.find("node_embedding") != std::string::npos);
        QVERIFY(warned);
        // The node keeps the default grouping: it is in no module scope.
        const ScopeTree* tree = m_window->graphView()->scopeTree();
        const Graph& graph = m_window->document()->model()->graph();
        const int scope = tree->scopeOfNode[static_cast<size_t>(graph.findNode("node_embedding"))];
        QVERIFY(scope >= 0);
        QVERIFY(tree->scopes[static_cast<size_t>(scope)].modulePath.isEmpty());
    }
};

QTEST_MAIN(TestTorchViewUi)
#include "test_torch_view_ui.moc"
