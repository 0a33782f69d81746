// SPDX-License-Identifier: MIT
// packaging/mime/onnxscope-mime.xml, compiled by update-mime-database as the package's dpkg trigger does, makes
// Qt's MIME database call ONNX models application/x-onnx: by the .onnx suffix, and by content without it.
#include <QDir>
#include <QFile>
#include <QMimeDatabase>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

namespace {

const QString kOnnx = QStringLiteral("application/x-onnx");

} // namespace

class TestMimeType : public QObject {
    Q_OBJECT

    QTemporaryDir m_dataHome;
    QTemporaryDir m_files;

    QString write(const QString& name, const QByteArray& bytes)
    {
        const QString path = m_files.filePath(name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
            return {};
        return path;
    }

private slots:
    void initTestCase()
    {
        const QString tool = QStandardPaths::findExecutable(QStringLiteral("update-mime-database"));
        if (tool.isEmpty())
            QSKIP("update-mime-database (Debian: shared-mime-info) is not installed");
        QVERIFY(m_dataHome.isValid() && m_files.isValid());
        QVERIFY(QDir(m_dataHome.path()).mkpath(QStringLiteral("mime/packages")));
        QVERIFY(QFile::copy(QStringLiteral(ONNXSCOPE_SOURCE_DIR "/packaging/mime/onnxscope-mime.xml"),
            m_dataHome.filePath(QStringLiteral("mime/packages/onnxscope-mime.xml"))));
        QProcess compile;
        compile.start(tool, { m_dataHome.filePath(QStringLiteral("mime")) });
        QVERIFY(compile.waitForFinished(60000));
        QCOMPARE(compile.exitCode(), 0);
        // Before the first QMimeDatabase, which reads the databases under XDG_DATA_HOME and XDG_DATA_DIRS once.
        qputenv("XDG_DATA_HOME", QFile::encodeName(m_dataHome.path()));
    }

    void byName()
    {
        const QMimeType type
            = QMimeDatabase().mimeTypeForFile(QStringLiteral("any/model.onnx"), QMimeDatabase::MatchExtension);
        QCOMPARE(type.name(), kOnnx);
        QCOMPARE(type.comment(), QStringLiteral("ONNX model"));
        QVERIFY(type.globPatterns().contains(QStringLiteral("*.onnx")));
    }

    void byContent_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<bool>("isOnnx");
        QFile sample(QStringLiteral(ONNXSCOPE_SOURCE_DIR "/resources/samples/mlp_classifier.onnx"));
        QVERIFY(sample.open(QIODevice::ReadOnly));
        QTest::newRow("the bundled sample") << sample.readAll() << true;
        // ir_version 7, then the first field set: producer_name, producer_version, domain, model_version,
        // doc_string, or straight to the graph.
        QTest::newRow("producer_name") << QByteArray("\x08\x07\x12\x07pytorch", 10) << true;
        QTest::newRow("producer_version") << QByteArray("\x08\x07\x1a\x03"
                                                        "2.1",
            7) << true;
        QTest::newRow("domain") << QByteArray("\x08\x03\x22\x02"
                                              "ai",
            6) << true;
        QTest::newRow("model_version") << QByteArray("\x08\x0a\x28\x01", 4) << true;
        QTest::newRow("doc_string") << QByteArray("\x08\x08\x32\x01x", 5) << true;
        QTest::newRow("graph") << QByteArray("\x08\x08\x3a\x00\x42\x02\x10\x11", 8) << true;
        QTest::newRow("an ir_version of 16 or more") << QByteArray("\x08\x10\x12\x01x", 5) << false;
        QTest::newRow("another field after ir_version") << QByteArray("\x08\x07\x40\x01\x02\x03", 6) << false;
        QTest::newRow("a PNG") << QByteArray("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16) << false;
    }

    void byContent()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(bool, isOnnx);
        const QString path = write(QStringLiteral("model"), bytes);
        QVERIFY(!path.isEmpty());
        const QString name = QMimeDatabase().mimeTypeForFile(path, QMimeDatabase::MatchContent).name();
        if (isOnnx)
            QCOMPARE(name, kOnnx);
        else
            QVERIFY2(name != kOnnx, qPrintable(name));
    }
};

QTEST_GUILESS_MAIN(TestMimeType)
#include "test_mime_type.moc"
