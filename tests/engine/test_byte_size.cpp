// SPDX-License-Identifier: MIT
// engine/core/byte_size: the one grammar for sizes and the one way byte counts are written, which the CLI, the GUI
// and Python all use. The expected values are the grammar's definition (powers of 1024) worked out by hand.
#include "engine/core/byte_size.h"
#include "engine/core/error.h"

#include <QtTest>

using namespace onnxscope;

class TestByteSize : public QObject {
    Q_OBJECT

private slots:
    void parsesEveryFormOfTheGrammar()
    {
        const std::pair<const char*, uint64_t> cases[] = {
            { "1048576", 1048576 },
            { "100B", 100 },
            { "100 b", 100 },
            { "512M", uint64_t(512) << 20 },
            { "4g", uint64_t(4) << 30 },
            { "64KiB", uint64_t(64) << 10 },
            { "64 kb", uint64_t(64) << 10 },
            { "64K", uint64_t(64) << 10 },
            { "1.5G", uint64_t(3) << 29 },
            { " 1.5 GiB ", uint64_t(3) << 29 },
            { "0.5K", 512 },
            { "2T", uint64_t(2) << 40 },
            { "3P", uint64_t(3) << 50 },
            { "1.0009765625K", 1025 },
            { "1.3B", 1 },
            { "18446744073709551615", UINT64_MAX },
            { "16383P", uint64_t(16383) << 50 },
        };
        for (const auto& [text, bytes] : cases) {
            const auto parsed = parseByteSize(text);
            QVERIFY2(parsed.has_value(), text);
            QVERIFY2(*parsed == bytes, (std::string(text) + " -> " + std::to_string(*parsed)).c_str());
        }
    }

    void refusesWhatIsNotASize()
    {
        for (const char* text : { "", " ", "abc", "0", "0.0001", "0K", "-5", "+5", "12X", "1.5.5G", "1e3", "M", "KB",
                 "5 M B", "5MiBs", "5 iB", "18446744073709551616", "16384P", "99999999999999999999", "1E", ".", "5 5" })
            QVERIFY2(!parseByteSize(text).has_value(), text);
        try {
            parseByteSizeOrThrow("lots", "--memory-budget");
            QFAIL("no error");
        } catch (const Error& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("--memory-budget") != std::string::npos && what.find("\"lots\"") != std::string::npos,
                e.what());
        }
    }

    void writesBinaryUnitsWithTheirNames()
    {
        QCOMPARE(formatByteCount(uint64_t(0)), std::string("0 B"));
        QCOMPARE(formatByteCount(uint64_t(1023)), std::string("1023 B"));
        QCOMPARE(formatByteCount(uint64_t(1024)), std::string("1.0 KiB"));
        QCOMPARE(formatByteCount(uint64_t(1536)), std::string("1.5 KiB"));
        QCOMPARE(formatByteCount(uint64_t(233) << 20), std::string("233.0 MiB"));
        QCOMPARE(formatByteCount(uint64_t(3) << 29), std::string("1.5 GiB"));
        QCOMPARE(formatByteCount(uint64_t(5) << 40), std::string("5.0 TiB"));
        // What is written reads back as the same size (to its one decimal).
        for (const uint64_t bytes : { uint64_t(64), uint64_t(3) << 29, uint64_t(512) << 20, uint64_t(1536) })
            QCOMPARE(parseByteSize(formatByteCount(bytes)).value_or(0), bytes);
    }
};

QTEST_APPLESS_MAIN(TestByteSize)
#include "test_byte_size.moc"
