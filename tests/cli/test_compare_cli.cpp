// SPDX-License-Identifier: MIT
// onnxscope-cli compare, through the real binary: a model against itself, a perturbed initializer, fp32 against an
// fp16 conversion of a small CNN, reference folders written by run --dump-all (also inside a Loop with an If), .npz
// references, exit codes, and the --json / --node-data files checked by an independent Python validator against
// docs/compare-format.md. Models and the fp16 conversion are made with /usr/bin/python3 + onnx + numpy.
#include "tests/common/run_process.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

using Result = onnxscope::testing::ProcessResult;

Result run(const QString& program, const QStringList& args)
{
    return onnxscope::testing::runProcess(program, args, 180000);
}

Result cli(const QStringList& args)
{
    return run(ONNXSCOPE_CLI, args);
}
Result python(const QString& script, const QStringList& args)
{
    return run("/usr/bin/python3", QStringList { "-c", script } + args);
}

QString describe(const Result& r)
{
    return QString("exit %1\nstdout:\n%2\nstderr:\n%3").arg(r.code).arg(r.out, r.err);
}

QJsonObject readJson(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

// Models:
//   mlp.onnx / mlp_perturbed.onnx   MatMul, Relu, Add, Mul by initializer w2 (node "scale/mul"), Sigmoid; the copy
//                                   differs only in w2
//   cnn.onnx / cnn_fp16.onnx        Conv, Relu, Conv, Relu, GlobalAveragePool, Flatten, Gemm, Softmax; the logits are
//                                   close to each other around 1000, where float16's spacing is 0.5;
//                                   the fp16 copy has float16 initializers, a Cast of the input to float16, the same
//                                   intermediate names, and Softmax -> "probs_h" -> Cast -> "probs"
//   loop.onnx / loop_perturbed.onnx Loop of 3 iterations with an If (then in iteration 2 only, adding constant k);
//                                   the copy differs only in k
// Also writes x.npy, cnn_x.npy, lx.npy and expected.json: numpy's estimate of the softmax error that rounding the
// logits to float16 alone causes (an independent order of magnitude for the fp16 report).
// (No lines starting with '#' in here: moc would take them for preprocessor directives.)
const char* kMakeModels = R"(
import sys, os, json, onnx, numpy as np
from onnx import helper as h, TensorProto as T, numpy_helper as nh
d = sys.argv[1]
def save(name, nodes, inputs, outputs, inits=()):
    g = h.make_graph(nodes, 'g', inputs, outputs, list(inits))
    m = h.make_model(g, opset_imports=[h.make_opsetid('', 13)], producer_name='compare-test')
    onnx.save(m, os.path.join(d, name))

def mlp(name, w2):
    inits = [nh.from_array(np.array([[0.5, -1.0], [0.25, 2.0], [-0.75, 1.5]], np.float32), 'w1'),
             nh.from_array(np.array([0.1, -0.2], np.float32), 'b'),
             nh.from_array(np.array(w2, np.float32), 'w2')]
    save(name, [
        h.make_node('MatMul', ['x', 'w1'], ['h'], name='proj/matmul'),
        h.make_node('Relu', ['h'], ['r'], name='act/relu'),
        h.make_node('Add', ['r', 'b'], ['a'], name='bias/add'),
        h.make_node('Mul', ['a', 'w2'], ['m'], name='scale/mul'),
        h.make_node('Sigmoid', ['m'], ['y'], name='out/sigmoid'),
    ], [h.make_tensor_value_info('x', T.FLOAT, [1, 3])], [h.make_tensor_value_info('y', T.FLOAT, [1, 2])], inits)
mlp('mlp.onnx', [1.0, -2.0])
mlp('mlp_perturbed.onnx', [1.0, -2.001])
np.save(os.path.join(d, 'x.npy'), np.array([[1, 2, -0.5]], np.float32))

rng = np.random.RandomState(0)
W1 = (rng.randn(4, 3, 3, 3) * 0.4).astype(np.float32); B1 = (rng.randn(4) * 0.1).astype(np.float32)
W2 = (rng.randn(6, 4, 3, 3) * 0.3).astype(np.float32); B2 = (rng.randn(6) * 0.1).astype(np.float32)
WG = (rng.randn(5, 6) * 0.3).astype(np.float32); BG = np.full(5, 1000, np.float32)
X = rng.rand(1, 3, 8, 8).astype(np.float32)
np.save(os.path.join(d, 'cnn_x.npy'), X)
def cnn(name, half):
    dt = np.float16 if half else np.float32
    inits = [nh.from_array(a.astype(dt), n) for a, n in ((W1, 'W1'), (B1, 'B1'), (W2, 'W2'), (B2, 'B2'), (WG, 'WG'), (BG, 'BG'))]
    src = 'x_h' if half else 'x'
    nodes = [h.make_node('Cast', ['x'], ['x_h'], name='to_fp16', to=T.FLOAT16)] if half else []
    nodes += [
        h.make_node('Conv', [src, 'W1', 'B1'], ['c1'], name='conv1', pads=[1, 1, 1, 1]),
        h.make_node('Relu', ['c1'], ['r1'], name='relu1'),
        h.make_node('Conv', ['r1', 'W2', 'B2'], ['c2'], name='conv2', pads=[1, 1, 1, 1]),
        h.make_node('Relu', ['c2'], ['r2'], name='relu2'),
        h.make_node('GlobalAveragePool', ['r2'], ['gap'], name='gap'),
        h.make_node('Flatten', ['gap'], ['flat'], name='flatten'),
        h.make_node('Gemm', ['flat', 'WG', 'BG'], ['logits'], name='fc', transB=1),
        h.make_node('Softmax', ['logits'], ['probs_h' if half else 'probs'], name='softmax', axis=1),
    ]
    if half:
        nodes.append(h.make_node('Cast', ['probs_h'], ['probs'], name='to_fp32', to=T.FLOAT))
    save(name, nodes, [h.make_tensor_value_info('x', T.FLOAT, [1, 3, 8, 8])],
         [h.make_tensor_value_info('probs', T.FLOAT, [1, 5])], inits)
cnn('cnn.onnx', False)
cnn('cnn_fp16.onnx', True)

def conv(x, w, b):
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1))).astype(np.float64)
    H, W = x.shape[1:]
    out = np.zeros((w.shape[0], H, W))
    for i in range(3):
        for j in range(3):
            out += np.einsum('oc,chw->ohw', w[:, :, i, j].astype(np.float64), xp[:, i:i + H, j:j + W])
    return out + b[:, None, None]
r2 = np.maximum(conv(np.maximum(conv(X[0], W1, B1), 0), W2, B2), 0)
logits = WG.astype(np.float64) @ r2.mean(axis=(1, 2)) + BG
def softmax(v):
    e = np.exp(v - v.max())
    return e / e.sum()
p32 = softmax(logits)
p16 = softmax(logits.astype(np.float16).astype(np.float64))
json.dump({'probs_error': float(np.abs(p32 - p16).max()), 'logits': logits.tolist()}, open(os.path.join(d, 'expected.json'), 'w'))

def loop(name, k):
    then_g = h.make_graph([h.make_node('Constant', [], ['k'], name='k_const', value=nh.from_array(np.array(k, np.float32))),
                           h.make_node('Add', ['acc', 'k'], ['t'], name='then_add')], 'then_g', [],
                          [h.make_tensor_value_info('t', T.FLOAT, [2])])
    else_g = h.make_graph([h.make_node('Mul', ['acc', 'lx'], ['e'], name='else_mul')], 'else_g', [],
                          [h.make_tensor_value_info('e', T.FLOAT, [2])])
    body = h.make_graph([
        h.make_node('Identity', ['c'], ['c_out'], name='keep_going'),
        h.make_node('Constant', [], ['two'], name='two', value=nh.from_array(np.array(2, np.int64))),
        h.make_node('Equal', ['i', 'two'], ['late'], name='is_late'),
        h.make_node('If', ['late'], ['acc_out'], name='branch', then_branch=then_g, else_branch=else_g),
        h.make_node('Identity', ['acc_out'], ['s'], name='record'),
    ], 'body', [h.make_tensor_value_info('i', T.INT64, []), h.make_tensor_value_info('c', T.BOOL, []),
                h.make_tensor_value_info('acc', T.FLOAT, [2])],
       [h.make_tensor_value_info('c_out', T.BOOL, []), h.make_tensor_value_info('acc_out', T.FLOAT, [2]),
        h.make_tensor_value_info('s', T.FLOAT, [2])])
    save(name, [
        h.make_node('Constant', [], ['trip'], name='trip', value=nh.from_array(np.array(3, np.int64))),
        h.make_node('Constant', [], ['cond'], name='cond', value=nh.from_array(np.array(True))),
        h.make_node('Loop', ['trip', 'cond', 'lx'], ['out', 'trace'], name='loop', body=body),
    ], [h.make_tensor_value_info('lx', T.FLOAT, [2])],
       [h.make_tensor_value_info('out', T.FLOAT, [2]), h.make_tensor_value_info('trace', T.FLOAT, [3, 2])])
loop('loop.onnx', [1.0, 1.0])
loop('loop_perturbed.onnx', [1.0, 1.5])
np.save(os.path.join(d, 'lx.npy'), np.array([2, 3], np.float32))
)";

// Checks a --json file against docs/compare-format.md, key by key and type by type; prints what is wrong.
const char* kValidateJson = R"(
import sys, json
j = json.load(open(sys.argv[1]))
errors = []
def need(obj, key, types, where, nullable=False):
    if key not in obj:
        errors.append(f'{where}: missing "{key}"'); return None
    v = obj[key]
    if v is None and nullable: return None
    if isinstance(v, bool) and bool not in types:
        errors.append(f'{where}: "{key}" is a bool'); return None
    if not isinstance(v, types):
        errors.append(f'{where}: "{key}" is {type(v).__name__}'); return None
    return v
num = (int, float)
STATUS = {'match', 'mismatch', 'shape_mismatch', 'kind_mismatch', 'only_a', 'only_b', 'skipped'}
if need(j, 'format', (str,), 'top') != 'onnxscope-compare': errors.append('format')
if need(j, 'version', (int,), 'top') != 1: errors.append('version')
for k in ('side_a', 'side_b'): need(j, k, (str,), 'top')
if need(j, 'side_b_kind', (str,), 'top') not in ('model', 'reference'): errors.append('side_b_kind')
for k in ('rtol', 'atol'): need(j, k, num, 'top')
for k in ('error_a', 'error_b'): need(j, k, (str,), 'top', nullable=True)
s = need(j, 'summary', (dict,), 'top') or {}
for k in STATUS | {'values', 'nodes', 'peak_held_bytes'}: need(s, k, (int,), 'summary')
for k in ('all_match', 'diverged'): need(s, k, (bool,), 'summary')
values = need(j, 'values', (list,), 'top') or []
nodes = need(j, 'nodes', (list,), 'top') or []
if s.get('values') != len(values): errors.append('summary.values != len(values)')
if s.get('nodes') != len(nodes): errors.append('summary.nodes != len(nodes)')
for st in STATUS:
    if s.get(st) != sum(1 for v in values if v.get('status') == st): errors.append(f'summary.{st} miscounted')
for i, v in enumerate(values):
    w = f'values[{i}]'
    if need(v, 'index', (int,), w) != i: errors.append(f'{w}: index')
    st = need(v, 'status', (str,), w)
    if st not in STATUS: errors.append(f'{w}: status {st}')
    if need(v, 'origin', (str,), w) not in ('input', 'initializer', 'node_output'): errors.append(f'{w}: origin')
    for k in ('name', 'name_b', 'frame', 'node', 'op_type', 'note'): need(v, k, (str,), w)
    for k in ('iteration', 'sequence'): need(v, k, (int,), w)
    for k in ('type_a', 'type_b'): need(v, k, (str,), w, nullable=True)
    compared = st in ('match', 'mismatch')
    for k in ('elements', 'mismatches', 'worst_index', 'nan_a', 'nan_b', 'inf_a', 'inf_b', 'nonfinite_mismatches'):
        x = need(v, k, (int,), w, nullable=True)
        if compared and k in ('elements', 'mismatches') and x is None: errors.append(f'{w}: {k} null for {st}')
    for k in ('max_abs_error', 'max_rel_error', 'mean_abs_error', 'cosine', 'tolerance_ratio'):
        x = need(v, k, num, w, nullable=True)
        if not compared and x is not None: errors.append(f'{w}: {k} set for {st}')
    if st == 'match' and v.get('mismatches') not in (0, None): errors.append(f'{w}: match with mismatches')
    if st == 'mismatch' and not v.get('mismatches'): errors.append(f'{w}: mismatch without mismatches')
    if st == 'only_a' and v.get('type_b') is not None: errors.append(f'{w}: only_a with type_b')
    if st == 'only_b' and v.get('type_a') is not None: errors.append(f'{w}: only_b with type_a')
last = 0
for i, n in enumerate(nodes):
    w = f'nodes[{i}]'
    if need(n, 'index', (int,), w) != i: errors.append(f'{w}: index')
    seq = need(n, 'sequence', (int,), w)
    if seq is not None:
        if seq <= last: errors.append(f'{w}: sequence not increasing')
        last = seq
    for k in ('frame', 'node', 'op_type'): need(n, k, (str,), w)
    need(n, 'iteration', (int,), w)
    if need(n, 'status', (str,), w) not in STATUS: errors.append(f'{w}: status')
    for k in ('max_abs_error', 'max_rel_error', 'cosine', 'tolerance_ratio'): need(n, k, num, w, nullable=True)
    need(n, 'root', (bool,), w)
    for r in need(n, 'values', (list,), w) or []:
        if not isinstance(r, int) or not 0 <= r < len(values): errors.append(f'{w}: bad value index {r}')
        elif values[r]['node'] != n.get('node') or values[r]['frame'] != n.get('frame'): errors.append(f'{w}: value {r} is another node\'s')
f = need(j, 'first_divergence', (dict,), 'top', nullable=True)
if f is not None:
    for k in ('node', 'op_type', 'frame', 'status'): need(f, k, (str,), 'first_divergence')
    for k in ('index', 'sequence', 'iteration'): need(f, k, (int,), 'first_divergence')
    need(f, 'outputs', (list,), 'first_divergence')
    if f.get('root') is not True: errors.append('first_divergence is not a root')
    if nodes and nodes[f['index']]['node'] != f['node']: errors.append('first_divergence.index')
    roots = [n for n in nodes if n.get('root')]
    if not roots or roots[0]['index'] != f['index']: errors.append('first_divergence is not the first root')
elif s.get('diverged') and any(n.get('root') for n in nodes): errors.append('roots but no first_divergence')
for r in need(j, 'differing_sources', (list,), 'top') or []:
    if not isinstance(r, int) or values[r]['origin'] == 'node_output': errors.append(f'differing_sources: {r}')
print('\n'.join(errors) if errors else 'ok')
sys.exit(1 if errors else 0)
)";

// Checks a --node-data file: Model Explorer's GraphNodeData (results keyed by tensor name, {"value": number}, optional
// bgColor; a gradient with stops 0 and 1). argv[2:]: tensor names that must be present.
const char* kValidateNodeData = R"(
import sys, json
j = json.load(open(sys.argv[1]))
errors = []
res = j.get('results')
if not isinstance(res, dict) or not res: errors.append('results missing or empty')
else:
    for k, v in res.items():
        if not isinstance(v, dict) or not isinstance(v.get('value'), (int, float)) or isinstance(v.get('value'), bool):
            errors.append(f'results[{k}]: no numeric value')
        if set(v) - {'value', 'bgColor', 'textColor'}: errors.append(f'results[{k}]: unknown keys {set(v)}')
    for name in sys.argv[2:]:
        if name not in res: errors.append(f'no result for {name}')
g = j.get('gradient')
if not isinstance(g, list) or not g or g[0].get('stop') != 0 or g[-1].get('stop') != 1: errors.append('gradient')
elif any(not isinstance(x.get('bgColor'), str) for x in g): errors.append('gradient colours')
print('\n'.join(errors) if errors else 'ok')
sys.exit(1 if errors else 0)
)";

} // namespace

class TestCompareCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString path(const QString& name) const { return m_dir.filePath(name); }

    void validate(const QString& jsonFile)
    {
        Result v = python(kValidateJson, { jsonFile });
        QVERIFY2(v.code == 0, qPrintable(describe(v)));
    }

    static QJsonObject valueRow(const QJsonObject& j, const QString& frame, const QString& name)
    {
        for (const auto& v : j["values"].toArray())
            if (v.toObject()["frame"].toString() == frame && v.toObject()["name"].toString() == name)
                return v.toObject();
        return {};
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        Result r = python(kMakeModels, { m_dir.path() });
        QVERIFY2(r.code == 0, qPrintable(describe(r)));
    }

    void modelAgainstItselfMatches()
    {
        Result r = cli({ "compare", path("mlp.onnx"), path("mlp.onnx"), "--input", "x=" + path("x.npy"), "--json",
            path("same.json"), "--node-data", path("same_nd.json") });
        QVERIFY2(r.code == 0, qPrintable(describe(r)));
        QVERIFY2(r.out.contains("no divergence"), qPrintable(r.out));
        QVERIFY2(!r.out.contains("| mismatch\n"), qPrintable(r.out));
        validate(path("same.json"));
        QJsonObject j = readJson(path("same.json"));
        QCOMPARE(j["summary"].toObject()["match"].toInt(), 9); // x, w1, b, w2 and five node outputs
        QVERIFY(j["summary"].toObject()["all_match"].toBool());
        QVERIFY(j["first_divergence"].isNull());
        Result nd = python(kValidateNodeData, { path("same_nd.json"), "h", "r", "a", "m", "y" });
        QVERIFY2(nd.code == 0, qPrintable(describe(nd)));
    }

    void perturbedInitializerDivergesAtItsConsumer()
    {
        Result r = cli({ "compare", path("mlp.onnx"), path("mlp_perturbed.onnx"), "--input", "x=" + path("x.npy"),
            "--json", path("perturbed.json") });
        QVERIFY2(r.code == 1, qPrintable(describe(r)));
        QVERIFY2(r.out.contains("first divergence: node \"scale/mul\" (Mul) at main"), qPrintable(r.out));
        QVERIFY2(r.out.contains("differing initializer \"w2\""), qPrintable(r.out));
        validate(path("perturbed.json"));
        QJsonObject j = readJson(path("perturbed.json"));
        QJsonObject f = j["first_divergence"].toObject();
        QCOMPARE(f["node"].toString(), QString("scale/mul"));
        QCOMPARE(f["outputs"].toArray().first().toString(), QString("m"));
        // a[1] = 2.05 (see the engine test), so m[1] differs by 0.001 * 2.05.
        QVERIFY(std::abs(f["max_abs_error"].toDouble() - 0.00205) < 1e-5);
        QCOMPARE(valueRow(j, "main", "h")["status"].toString(), QString("match"));
        QCOMPARE(valueRow(j, "main", "y")["status"].toString(), QString("mismatch"));
        QCOMPARE(j["differing_sources"].toArray().size(), 1);

        // A looser tolerance accepts the difference: exit 0.
        Result loose = cli({ "compare", path("mlp.onnx"), path("mlp_perturbed.onnx"), "--input", "x=" + path("x.npy"),
            "--rtol", "0.01" });
        QVERIFY2(loose.code == 0, qPrintable(describe(loose)));
    }

    void fp16ConversionLosesPrecisionAtTheSoftmax()
    {
        Result r = cli({ "compare", path("cnn.onnx"), path("cnn_fp16.onnx"), "--input", "x=" + path("cnn_x.npy"),
            "--rtol", "1e-2", "--atol", "1e-2", "--json", path("fp16.json"), "--node-data", path("fp16_nd.json") });
        QVERIFY2(r.code == 1, qPrintable(describe(r)));
        QVERIFY2(r.out.contains("first divergence: node \"softmax\" (Softmax)"), qPrintable(r.out));
        validate(path("fp16.json"));
        QJsonObject j = readJson(path("fp16.json"));
        QCOMPARE(j["first_divergence"].toObject()["op_type"].toString(), QString("Softmax"));
        // Everything before the Softmax ran in float16 (non-zero error) yet within 1 %; the weights were rounded.
        for (const char* name : { "c1", "r1", "c2", "gap", "logits" }) {
            QJsonObject row = valueRow(j, "main", name);
            QCOMPARE(row["status"].toString(), QString("match"));
            QVERIFY2(row["type_b"].toString().startsWith("float16"), qPrintable(row["type_b"].toString()));
            QVERIFY2(row["max_abs_error"].toDouble() > 0, name);
            QVERIFY2(row["max_rel_error"].toDouble() < 1e-2 || row["max_abs_error"].toDouble() < 1e-2, name);
        }
        QVERIFY(valueRow(j, "main", "W1")["max_abs_error"].toDouble() > 0);
        // Only in B: the input cast and Softmax's float16 output under its own name.
        QCOMPARE(valueRow(j, "main", "x_h")["status"].toString(), QString("only_b"));
        QCOMPARE(valueRow(j, "main", "probs_h")["status"].toString(), QString("only_b"));
        // The probabilities' error is of the order numpy predicts from rounding the logits to float16.
        QFile f(path("expected.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const double predicted = QJsonDocument::fromJson(f.readAll()).object()["probs_error"].toDouble();
        const double reported = valueRow(j, "main", "probs")["max_abs_error"].toDouble();
        QVERIFY2(predicted > 1e-2, qPrintable(QString::number(predicted)));
        QVERIFY2(reported > predicted / 10 && reported < predicted * 10 && reported <= 1,
            qPrintable(QString("reported %1, numpy's estimate %2").arg(reported).arg(predicted)));
        Result nd = python(kValidateNodeData, { path("fp16_nd.json"), "probs", "logits", "c1" });
        QVERIFY2(nd.code == 0, qPrintable(describe(nd)));
        QJsonObject results = readJson(path("fp16_nd.json"))["results"].toObject();
        QCOMPARE(results["probs"].toObject()["value"].toDouble(), reported);
    }

    void referenceFolderFromDumpAllMatches()
    {
        Result dump = cli(
            { "run", path("mlp.onnx"), "--input", "x=" + path("x.npy"), "--dump-all", "-o", path("dump_mlp"), "-q" });
        QVERIFY2(dump.code == 0, qPrintable(describe(dump)));
        Result r = cli({ "compare", path("mlp.onnx"), "--reference", path("dump_mlp"), "--input", "x=" + path("x.npy"),
            "--json", path("ref.json") });
        QVERIFY2(r.code == 0, qPrintable(describe(r)));
        validate(path("ref.json"));
        QJsonObject j = readJson(path("ref.json"));
        QCOMPARE(j["side_b_kind"].toString(), QString("reference"));
        QCOMPARE(j["summary"].toObject()["match"].toInt(), 5); // the five node outputs
        QVERIFY(j["summary"].toObject()["all_match"].toBool());

        // Random inputs: the same seed gives the same values in run and compare.
        dump = cli(
            { "run", path("cnn.onnx"), "--random-inputs", "--seed", "7", "--dump-all", "-o", path("dump_cnn"), "-q" });
        QVERIFY2(dump.code == 0, qPrintable(describe(dump)));
        r = cli({ "compare", path("cnn.onnx"), "--reference", path("dump_cnn"), "--random-inputs", "--seed", "7" });
        QVERIFY2(r.code == 0, qPrintable(describe(r)));
        r = cli({ "compare", path("cnn.onnx"), "--reference", path("dump_cnn"), "--random-inputs", "--seed", "8" });
        QVERIFY2(r.code == 1, qPrintable(describe(r)));
        QVERIFY2(r.out.contains("first divergence: node \"conv1\" (Conv)"), qPrintable(r.out));
    }

    void subgraphValuesComparePerIteration()
    {
        // Against a dump of itself: every value of every iteration matches, with its frame path.
        Result dump = cli({ "run", path("loop.onnx"), "--input", "lx=" + path("lx.npy"), "--dump-all", "-o",
            path("dump_loop"), "-q" });
        QVERIFY2(dump.code == 0, qPrintable(describe(dump)));
        Result r = cli({ "compare", path("loop.onnx"), "--reference", path("dump_loop"), "--input",
            "lx=" + path("lx.npy"), "--json", path("loop_ref.json") });
        QVERIFY2(r.code == 0, qPrintable(describe(r)));
        validate(path("loop_ref.json"));
        QJsonObject j = readJson(path("loop_ref.json"));
        for (int i = 0; i < 3; ++i) {
            const QString frame = QString("main / Loop \"loop\" iteration %1").arg(i);
            QJsonObject s = valueRow(j, frame, "s");
            QCOMPARE(s["status"].toString(), QString("match"));
            QCOMPARE(s["iteration"].toInt(), i);
            const QString branch = frame + (i == 2 ? " / If \"branch\" then_branch" : " / If \"branch\" else_branch");
            QCOMPARE(valueRow(j, branch, i == 2 ? "t" : "e")["status"].toString(), QString("match"));
        }

        // The dumped value of iteration 1 edited: the divergence is found in that iteration.
        Result edit = python(R"(
import sys, json, os, numpy as np
d = sys.argv[1]
m = json.load(open(os.path.join(d, 'manifest.json')))
e = [t for t in m['tensors'] if t['name'] == 'e' and 'iteration 1' in t['frame']][0]
a = np.load(os.path.join(d, e['file'])); a[1] += 0.5; np.save(os.path.join(d, e['file']), a)
)",
            { path("dump_loop") });
        QVERIFY2(edit.code == 0, qPrintable(describe(edit)));
        r = cli({ "compare", path("loop.onnx"), "--reference", path("dump_loop"), "--input", "lx=" + path("lx.npy") });
        QVERIFY2(r.code == 1, qPrintable(describe(r)));
        QVERIFY2(r.out.contains("first divergence: node \"else_mul\" (Mul) at main / Loop \"loop\" iteration 1 / If "
                                "\"branch\" else_branch"),
            qPrintable(r.out));

        // Two models that differ in a constant used in iteration 2 only.
        r = cli({ "compare", path("loop.onnx"), path("loop_perturbed.onnx"), "--input", "lx=" + path("lx.npy"),
            "--json", path("loop.json") });
        QVERIFY2(r.code == 1, qPrintable(describe(r)));
        QVERIFY2(
            r.out.contains("first divergence: node \"k_const\" (Constant) at main / Loop \"loop\" iteration 2 / If "
                           "\"branch\" then_branch"),
            qPrintable(r.out));
        validate(path("loop.json"));
        j = readJson(path("loop.json"));
        QCOMPARE(valueRow(j, "main / Loop \"loop\" iteration 1", "s")["status"].toString(), QString("match"));
        QCOMPARE(valueRow(j, "main / Loop \"loop\" iteration 2", "s")["status"].toString(), QString("mismatch"));
        QCOMPARE(valueRow(j, "main", "out")["status"].toString(), QString("mismatch"));
    }

    void npzReferenceAndNameMap()
    {
        // An .npz as exported from another framework, with a renamed tensor: matched through --map.
        Result make = python(R"(
import sys, os, numpy as np
d = sys.argv[1]
x = np.array([[1, 2, -0.5]], np.float32)
w1 = np.array([[0.5, -1.0], [0.25, 2.0], [-0.75, 1.5]], np.float32)
h = x @ w1
np.savez(os.path.join(d, 'ref.npz'), hidden=h, y=1 / (1 + np.exp(-(np.maximum(h, 0) + [0.1, -0.2]) * [1.0, -2.0])))
)",
            { m_dir.path() });
        QVERIFY2(make.code == 0, qPrintable(describe(make)));
        Result r = cli({ "compare", path("mlp.onnx"), "--reference", path("ref.npz"), "--input", "x=" + path("x.npy"),
            "--map", "h=hidden", "--json", path("npz.json") });
        QVERIFY2(r.code == 0, qPrintable(describe(r)));
        validate(path("npz.json"));
        QJsonObject j = readJson(path("npz.json"));
        QCOMPARE(valueRow(j, "main", "h")["status"].toString(), QString("match"));
        QCOMPARE(valueRow(j, "main", "h")["name_b"].toString(), QString("hidden"));
        QCOMPARE(valueRow(j, "main", "y")["status"].toString(), QString("match"));
        QCOMPARE(valueRow(j, "main", "r")["status"].toString(), QString("only_a"));
        // Without the map, "hidden" is only in the reference and "h" only in A; that is not a divergence.
        r = cli({ "compare", path("mlp.onnx"), "--reference", path("ref.npz"), "--input", "x=" + path("x.npy") });
        QVERIFY2(r.code == 0, qPrintable(describe(r)));
        QVERIFY2(r.out.contains("\"hidden\" | - | float[1, 2]") && r.out.contains("only_b"), qPrintable(r.out));
    }

    void usageAndModelErrors()
    {
        Result r = cli({ "compare", path("mlp.onnx"), "--input", "x=" + path("x.npy") });
        QVERIFY2(r.code == 2, qPrintable(describe(r)));
        r = cli({ "compare", path("mlp.onnx"), path("mlp.onnx"), "--reference", path("dump_mlp") });
        QVERIFY2(r.code == 2, qPrintable(describe(r)));
        r = cli({ "compare", path("mlp.onnx"), path("mlp.onnx"), "--input", "x=" + path("x.npy"), "--map", "novalue" });
        QVERIFY2(r.code == 2, qPrintable(describe(r)));
        r = cli({ "compare", path("mlp.onnx"), "--reference", path("nowhere"), "--input", "x=" + path("x.npy") });
        QVERIFY2(r.code == 1 && r.err.contains("nowhere"), qPrintable(describe(r)));
        r = cli({ "compare", path("mlp.onnx"), path("mlp.onnx") });
        QVERIFY2(r.code == 1 && r.err.contains("missing input \"x\""), qPrintable(describe(r)));
    }
};

QTEST_GUILESS_MAIN(TestCompareCli)
#include "test_compare_cli.moc"
