// SPDX-License-Identifier: MIT
#include "ui/tensorinspector/tensor_inspector.h"

#include "ui/common/elided_label.h"

#include "ui/common/input_spec.h"
#include "ui/common/tensor_format.h"
#include "ui/tensorinspector/tensor_diff_view.h"
#include "ui/tensorinspector/tensor_plots.h"
#include "ui/tensorinspector/tensor_table_model.h"

#include <QFileDialog>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent>

#include <cstring>

namespace onnxscope {

namespace {

struct StatsResult {
    TensorStats stats;
    Histogram histogram;
};

constexpr int kBins = 64;

} // namespace

TensorInspector::TensorInspector(QWidget* parent)
    : QWidget(parent)
    , m_header(new QLabel(this))
    , m_statsLabel(new QLabel(this))
    , m_sliceLayout(new QHBoxLayout)
    , m_sliceStats(new QLabel(this))
    , m_tabs(new QTabWidget(this))
    , m_table(new QTableView(this))
    , m_model(new TensorTableModel(this))
    , m_heatmap(new HeatmapWidget(this))
    , m_histogram(new HistogramWidget(this))
    , m_compareResult(new QLabel(this))
    , m_diff(new TensorDiffView(this))
    , m_exportButton(new QPushButton(QStringLiteral("Export\u2026"), this))
    , m_pinButton(new QPushButton(QStringLiteral("Pin"), this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* top = new QHBoxLayout;
    m_header->setTextFormat(Qt::RichText);
    m_header->setWordWrap(true);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    top->addWidget(m_header, 1);
    m_exportButton->setEnabled(false);
    m_pinButton->setCheckable(true);
    m_pinButton->setToolTip(QStringLiteral(
        "Keep showing this tensor: while pinned, selecting another value in the graph, the Values dock or a "
        "comparison does not replace it"));
    top->addWidget(m_pinButton, 0, Qt::AlignTop);
    top->addWidget(m_exportButton, 0, Qt::AlignTop);
    layout->addLayout(top);
    m_statsLabel->setTextFormat(Qt::RichText);
    m_statsLabel->setWordWrap(true);
    m_statsLabel->setWordWrap(true);
    m_statsLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_statsLabel);
    layout->addLayout(m_sliceLayout);
    m_sliceStats->setObjectName(QStringLiteral("sliceStats"));
    m_sliceStats->setWordWrap(true);
    m_sliceStats->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_sliceStats);

    m_table->setModel(m_model);
    m_table->horizontalHeader()->setDefaultSectionSize(kMinElementColumnWidth);
    m_table->verticalHeader()->setDefaultSectionSize(20);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_tabs->addTab(m_table, QStringLiteral("Table"));
    m_tabs->addTab(makeHeatmapPage(m_heatmap, QStringLiteral("heatmapColours"), this), QStringLiteral("Heatmap"));
    m_tabs->addTab(m_histogram, QStringLiteral("Histogram"));
    auto* compare = new QWidget(this);
    auto* cl = new QVBoxLayout(compare);
    auto* buttons = new QHBoxLayout;
    auto* withValue = new QPushButton(QStringLiteral("Compare with value\u2026"), compare);
    auto* withFile = new QPushButton(QStringLiteral("Compare with file\u2026"), compare);
    buttons->addWidget(withValue);
    buttons->addWidget(withFile);
    buttons->addStretch(1);
    cl->addLayout(buttons);
    m_compareResult->setParent(compare);
    m_compareResult->setTextFormat(Qt::RichText);
    m_compareResult->setWordWrap(true);
    m_compareResult->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_compareResult->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    cl->addWidget(m_compareResult, 1);
    m_tabs->addTab(compare, QStringLiteral("Compare"));
    // Both sides' tables side by side: in a narrow column the page scrolls rather than widening the window.
    auto* diffPage = new QScrollArea(this);
    diffPage->setWidgetResizable(true);
    diffPage->setFrameShape(QFrame::NoFrame);
    diffPage->setWidget(m_diff);
    m_tabs->addTab(diffPage, QStringLiteral("Diff"));
    layout->addWidget(m_tabs, 1);

    connect(withValue, &QPushButton::clicked, this, &TensorInspector::chooseValueToCompare);
    connect(withFile, &QPushButton::clicked, this, &TensorInspector::chooseFileToCompare);
    connect(m_tabs, &QTabWidget::currentChanged, this, [this](int tab) {
        if (tab == HeatmapTab)
            updateHeatmap();
        updateSliceVisibility();
    });
    connect(m_exportButton, &QPushButton::clicked, this, [this] {
        if (m_tensor.defined())
            emit exportRequested(m_title, m_tensor);
    });
    clear();
}

TensorInspector::~TensorInspector()
{
    ++m_generation;
}

void TensorInspector::clear()
{
    m_title.clear();
    m_value = Value();
    m_tensor = Tensor();
    m_stats.reset();
    ++m_generation;
    m_model->setTensor(Tensor());
    m_heatmap->clear();
    m_histogram->setHistogram({});
    m_header->setText(
        QStringLiteral("<span style='color:#6b7280'>Select a computed value (Values dock, a graph edge or node) "
                       "or an initializer to inspect it.</span>"));
    m_statsLabel->clear();
    m_compareResult->clear();
    m_exportButton->setEnabled(false);
    if (m_itemBox) {
        delete m_itemBox;
        m_itemBox = nullptr;
    }
    rebuildSliceControls();
}

bool TensorInspector::isPinned() const
{
    return m_pinButton->isChecked();
}

void TensorInspector::setValue(const QString& title, const Value& value)
{
    const Value* v = &value;
    if (v->isOptional()) {
        if (!v->optionalValue()) {
            clear();
            m_title = title;
            m_header->setText(QStringLiteral("<b>%1</b><br>empty optional").arg(title.toHtmlEscaped()));
            return;
        }
        v = v->optionalValue();
    }
    if (v->isTensor()) {
        setTensor(title, v->tensor());
        return;
    }
    if (v->isMap()) {
        // The values, each row named by its key (the title still lists the first keys, for exports and tooltips).
        const Map& map = v->map();
        setTensor(title + QStringLiteral(" (map values; keys: %1)").arg(formatTensorValues(map.keys, 6)), map.values);
        if (map.values.rank() == 1 && map.keys.size() == map.values.size() && map.keys.size() <= 100000) {
            QStringList labels;
            labels.reserve(static_cast<qsizetype>(map.keys.size()));
            for (int64_t i = 0; i < map.keys.size(); ++i)
                labels << formatElement(map.keys, i);
            m_model->setRowLabels(labels);
        }
        return;
    }
    if (v->isSequence()) {
        const Sequence& seq = v->sequence();
        const Value keep = *v;
        if (seq.items.empty()) {
            clear();
            m_title = title;
            m_header->setText(QStringLiteral("<b>%1</b><br>empty sequence").arg(title.toHtmlEscaped()));
            return;
        }
        setValue(title + QStringLiteral(" [item 0 of %1]").arg(seq.items.size()), seq.items.front());
        m_value = keep;
        m_itemBox = new QSpinBox(this);
        m_itemBox->setPrefix(QStringLiteral("item "));
        m_itemBox->setRange(0, static_cast<int>(seq.items.size()) - 1);
        m_sliceLayout->insertWidget(0, m_itemBox);
        connect(m_itemBox, &QSpinBox::valueChanged, this, [this, title, keep](int i) {
            const auto& items = keep.sequence().items;
            QSpinBox* box = m_itemBox;
            m_itemBox = nullptr; // survive the item's setValue()
            box->setParent(nullptr);
            setValue(
                title + QStringLiteral(" [item %1 of %2]").arg(i).arg(items.size()), items[static_cast<size_t>(i)]);
            m_value = keep;
            m_itemBox = box;
            box->setParent(this);
            m_sliceLayout->insertWidget(0, box);
            box->show();
        });
        return;
    }
    clear();
    m_title = title;
    m_header->setText(
        QStringLiteral("<b>%1</b><br>%2").arg(title.toHtmlEscaped(), QString::fromStdString(value.typeString())));
}

void TensorInspector::setTensor(const QString& title, const Tensor& tensor)
{
    if (m_itemBox) {
        delete m_itemBox;
        m_itemBox = nullptr;
    }
    m_title = title;
    m_tensor = tensor;
    m_value = tensor;
    m_stats.reset();
    m_axisNames = tensor.defined() ? guessAxisNames(title, tensor.shape()) : QStringList();
    m_model->setTensor(tensor);
    m_table->horizontalHeader()->setDefaultSectionSize(elementColumnWidth(tensor, m_table->fontMetrics()));
    m_compareResult->clear();
    m_exportButton->setEnabled(tensor.defined());
    m_header->setText(headerText());
    m_statsLabel->setText(tensor.defined() && tensor.size() > 0
            ? QStringLiteral("<span style='color:#6b7280'>computing statistics\u2026</span>")
            : QString());
    rebuildSliceControls();
    if (m_tabs->currentIndex() == HeatmapTab)
        updateHeatmap();
    else
        m_heatmap->clear();
    startStats();
}

QString TensorInspector::headerText() const
{
    if (!m_tensor.defined())
        return QStringLiteral("<b>%1</b>").arg(m_title.toHtmlEscaped());
    const auto dtype = dataTypeName(m_tensor.dtype());
    // One arg() for all, so that a "%1" in a tensor's name is not taken for a place of its own.
    return QStringLiteral("<b>%1</b><br>%2 \u27e8%3\u27e9 \u00b7 %4 \u00b7 %5")
        .arg(m_title.toHtmlEscaped(), QString::fromUtf8(dtype.data(), static_cast<qsizetype>(dtype.size())),
            formatShape(m_tensor.shape()), elementCountText(m_tensor.size()), formatBytes(m_tensor.byteSize()));
}

void TensorInspector::startStats()
{
    const quint64 generation = ++m_generation;
    if (!m_tensor.defined() || m_tensor.size() == 0) {
        m_histogram->setHistogram({}, QStringLiteral("Empty tensor"));
        return;
    }
    if (m_tensor.dtype() == DataType::String) {
        m_stats = computeStats(m_tensor);
        m_statsLabel->setText(statsText());
        m_histogram->setHistogram({}, QStringLiteral("String tensor: no histogram"));
        emit statsComputed();
        return;
    }
    auto* watcher = new QFutureWatcher<StatsResult>(this);
    connect(watcher, &QFutureWatcher<StatsResult>::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        if (generation != m_generation)
            return;
        const StatsResult r = watcher->result();
        m_stats = r.stats;
        m_statsLabel->setText(statsText());
        m_histogram->setHistogram(
            r.histogram, m_tensor.dtype() == DataType::Bool ? QStringLiteral("false \u2026 true") : QString());
        emit statsComputed();
    });
    const Tensor tensor = m_tensor;
    watcher->setFuture(QtConcurrent::run([tensor] {
        StatsResult r;
        r.stats = computeStats(tensor);
        if (r.stats.finite > 0)
            r.histogram = computeHistogram(tensor, tensor.dtype() == DataType::Bool ? 2 : kBins, r.stats.min,
                r.stats.max > r.stats.min ? r.stats.max : r.stats.min + 1);
        return r;
    }));
}

QString TensorInspector::statsText() const
{
    if (!m_stats)
        return {};
    const TensorStats& s = *m_stats;
    if (!s.numeric)
        return QStringLiteral("%1 strings").arg(s.count);
    auto n = [](double v) { return QString::number(v, 'g', 6); };
    QString text = m_tensor.dtype() == DataType::Bool
        ? QStringLiteral("true %1 \u00b7 false %2").arg(s.count - s.zeros).arg(s.zeros)
        : QStringLiteral("min %1 \u00b7 max %2 \u00b7 mean %3 \u00b7 std %4 \u00b7 zeros %5")
              .arg(n(s.min), n(s.max), n(s.mean), n(s.std))
              .arg(s.zeros);
    if (isFloatingPoint(m_tensor.dtype()) || isComplex(m_tensor.dtype())) {
        const QString bad = QStringLiteral(" \u00b7 NaN %1 \u00b7 +Inf %2 \u00b7 \u2212Inf %3")
                                .arg(s.nan)
                                .arg(s.posInf)
                                .arg(s.negInf);
        text += s.nonFinite() > 0 ? QStringLiteral("<span style='color:#c62828'>%1</span>").arg(bad) : bad;
    }
    return text;
}

void TensorInspector::rebuildSliceControls()
{
    for (QSpinBox* box : m_sliceBoxes)
        delete box;
    m_sliceBoxes.clear();
    while (QLayoutItem* item = m_sliceLayout->takeAt(0)) {
        if (item->widget() && item->widget() != m_itemBox)
            delete item->widget();
        delete item;
    }
    if (m_itemBox)
        m_sliceLayout->addWidget(m_itemBox);
    if (!m_tensor.defined() || m_tensor.rank() <= 2) {
        m_sliceLayout->addStretch(1); // a sequence's item box keeps its own width
        return;
    }
    m_sliceLayout->addWidget(new QLabel(QStringLiteral("Slice:"), this));
    for (int64_t axis = 0; axis + 2 < m_tensor.rank(); ++axis) {
        auto* box = new QSpinBox(this);
        box->setRange(0, static_cast<int>(std::max<int64_t>(m_tensor.dim(axis) - 1, 0)));
        box->setPrefix(axisName(axis) + QStringLiteral(" = "));
        box->setSuffix(QStringLiteral(" / %1").arg(m_tensor.dim(axis)));
        box->setObjectName(QStringLiteral("sliceAxis%1").arg(axis));
        connect(box, &QSpinBox::valueChanged, this, &TensorInspector::sliceChanged);
        m_sliceLayout->addWidget(box);
        m_sliceBoxes.push_back(box);
    }
    // Elided rather than setting the dock's minimum width: the inspector fits a narrow column.
    auto* axes = new ElidedLabel(this);
    axes->setText(QStringLiteral("rows: %1 \u00b7 columns: %2")
                      .arg(axisName(m_tensor.rank() - 2), axisName(m_tensor.rank() - 1)));
    axes->setToolTip(axes->text());
    m_sliceLayout->addWidget(axes, 1);
    m_sliceLayout->addStretch(1);
    updateSliceVisibility();
    updateSliceStats();
}

QString TensorInspector::axisName(int64_t axis) const
{
    if (axis >= 0 && axis < m_axisNames.size() && !m_axisNames[axis].isEmpty())
        return m_axisNames[axis];
    return QStringLiteral("axis %1").arg(axis);
}

void TensorInspector::setAxisNames(const QStringList& names)
{
    m_axisNames = names;
    std::vector<int64_t> slice;
    for (QSpinBox* box : m_sliceBoxes)
        slice.push_back(box->value());
    rebuildSliceControls();
    setSlice(slice);
}

QStringList TensorInspector::guessAxisNames(const QString& title, const Shape& shape)
{
    // The value's name is the title's first word; the debugger appends "  ← node (OpType)".
    const QString name = title.section(QLatin1Char(' '), 0, 0).toLower();
    QString op;
    if (const int open = title.lastIndexOf(QLatin1Char('(')); open >= 0 && title.endsWith(QLatin1Char(')')))
        op = title.mid(open + 1, title.size() - open - 2);
    const bool cacheName = (name.contains(QLatin1String("present")) || name.contains(QLatin1String("past")))
        && (name.contains(QLatin1String("key")) || name.contains(QLatin1String("value")));
    const bool attentionOp = op == QLatin1String("GroupQueryAttention") || op == QLatin1String("MultiHeadAttention")
        || op == QLatin1String("Attention");
    if (!cacheName && !(attentionOp && name.contains(QLatin1String("present"))))
        return {};
    const QString head = op == QLatin1String("GroupQueryAttention") || op.isEmpty() ? QStringLiteral("kv head")
                                                                                    : QStringLiteral("head");
    if (shape.size() == 4)
        return { QStringLiteral("batch"), head, QStringLiteral("position"), QStringLiteral("head dim") };
    if (shape.size() == 5 && shape[0] == 2) // Attention's present: [2 (key, value), batch, head, position, head dim]
        return { QStringLiteral("key/value"), QStringLiteral("batch"), head, QStringLiteral("position"),
            QStringLiteral("head dim") };
    return {};
}

QString TensorInspector::sliceStatsText() const
{
    return m_sliceStats->text();
}

void TensorInspector::updateSliceStats()
{
    // A tensor of rank > 2 shows one 2-D slice at a time (one head of a KV cache): its own statistics, so that a
    // head can be told from the others without the whole tensor's numbers.
    if (!m_tensor.defined() || m_tensor.rank() <= 2 || m_tensor.size() == 0 || m_tensor.dtype() == DataType::String) {
        m_sliceStats->clear();
        m_sliceStats->setVisible(false);
        return;
    }
    const int64_t rows = m_model->rowCount(), columns = m_model->columnCount();
    Tensor slice = Tensor::uninitialized(m_tensor.dtype(), { rows, columns });
    const size_t element = m_tensor.byteSize() / static_cast<size_t>(m_tensor.size());
    std::memcpy(slice.mutableRaw(), static_cast<const char*>(m_tensor.raw()) + m_model->elementIndex(0, 0) * element,
        slice.byteSize());
    const TensorStats st = computeStats(slice);
    QStringList where;
    for (size_t i = 0; i < m_sliceBoxes.size(); ++i)
        where << QStringLiteral("%1 %2").arg(axisName(static_cast<int64_t>(i))).arg(m_sliceBoxes[i]->value());
    auto n = [](double v) { return QString::number(v, 'g', 6); };
    QString text = QStringLiteral("%1: min %2 \u00b7 max %3 \u00b7 mean %4 \u00b7 std %5")
                       .arg(where.join(QStringLiteral(", ")), n(st.min), n(st.max), n(st.mean), n(st.std));
    if (st.nonFinite() > 0)
        text += QStringLiteral(" \u00b7 NaN %1 \u00b7 \u00b1Inf %2").arg(st.nan).arg(st.posInf + st.negInf);
    m_sliceStats->setText(text);
    m_sliceStats->setVisible(m_tabs->currentIndex() != DiffTab);
}

void TensorInspector::updateSliceVisibility()
{
    // The Diff tab has its own slice controls and statistics for both sides.
    const bool visible = m_tabs->currentIndex() != DiffTab;
    m_statsLabel->setVisible(visible);
    m_sliceStats->setVisible(visible && !m_sliceStats->text().isEmpty());
    for (int i = 0; i < m_sliceLayout->count(); ++i)
        if (QWidget* w = m_sliceLayout->itemAt(i)->widget())
            w->setVisible(visible);
}

void TensorInspector::setSlice(const std::vector<int64_t>& leading)
{
    for (size_t i = 0; i < leading.size() && i < m_sliceBoxes.size(); ++i) {
        const QSignalBlocker blocker(m_sliceBoxes[i]);
        m_sliceBoxes[i]->setValue(static_cast<int>(leading[i]));
    }
    sliceChanged();
}

void TensorInspector::sliceChanged()
{
    std::vector<int64_t> slice;
    for (QSpinBox* box : m_sliceBoxes)
        slice.push_back(box->value());
    m_model->setSlice(std::move(slice));
    updateSliceStats();
    if (m_tabs->currentIndex() == HeatmapTab)
        updateHeatmap();
}

void TensorInspector::updateHeatmap()
{
    if (!m_tensor.defined() || m_tensor.size() == 0 || m_tensor.dtype() == DataType::String) {
        m_heatmap->clear();
        return;
    }
    const int64_t rows = m_model->rowCount();
    const int64_t columns = m_model->columnCount();
    m_heatmap->setSlice(m_tensor, m_model->elementIndex(0, 0), rows, columns);
}

QString TensorInspector::indexText(int64_t flat) const
{
    if (flat < 0)
        return QStringLiteral("-");
    QStringList parts;
    int64_t rest = flat;
    std::vector<int64_t> idx(m_tensor.shape().size());
    for (size_t i = idx.size(); i-- > 0;) {
        const int64_t d = std::max<int64_t>(m_tensor.shape()[i], 1);
        idx[i] = rest % d;
        rest /= d;
    }
    for (int64_t i : idx)
        parts << QString::number(i);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

std::optional<TensorDiff> TensorInspector::compareWith(const QString& label, const Tensor& reference)
{
    m_tabs->setCurrentIndex(CompareTab);
    if (!m_tensor.defined()) {
        m_compareResult->setText(QStringLiteral("Nothing to compare: no tensor is shown."));
        return std::nullopt;
    }
    try {
        const TensorDiff d = compareTensors(m_tensor, reference);
        QString text
            = QStringLiteral("<b>%1</b> vs <b>%2</b> (%3)<br>")
                  .arg(m_title.toHtmlEscaped(), label.toHtmlEscaped(), QString::fromStdString(reference.typeString()));
        if (m_tensor.shape() != reference.shape())
            text += QStringLiteral(
                "<span style='color:#b45309'>Shapes differ (%1 vs %2); compared element by element.</span><br>")
                        .arg(formatShape(m_tensor.shape()), formatShape(reference.shape()));
        text += QStringLiteral(
            "max abs error: <b>%1</b><br>max rel error: <b>%2</b><br>worst index: <b>%3</b> (this %4, other %5)")
                    .arg(d.maxAbs, 0, 'g', 6)
                    .arg(d.maxRel, 0, 'g', 6)
                    .arg(indexText(d.worstIndex))
                    .arg(d.worstA, 0, 'g', 8)
                    .arg(d.worstB, 0, 'g', 8);
        if (d.mismatchedNonFinite > 0)
            text += QStringLiteral("<br><span style='color:#c62828'>%1 elements where NaN/Inf do not match</span>")
                        .arg(d.mismatchedNonFinite);
        m_compareResult->setText(text);
        if (d.worstIndex >= 0 && m_tensor.rank() >= 1) {
            // Show the worst element in the table.
            const int64_t columns = m_model->columnCount() > 0 ? m_model->columnCount() : 1;
            const int64_t rows = m_model->rowCount() > 0 ? m_model->rowCount() : 1;
            const int64_t per = rows * columns;
            std::vector<int64_t> leading;
            int64_t outer = d.worstIndex / per;
            for (size_t i = m_sliceBoxes.size(); i-- > 0;) {
                const int64_t dim = m_tensor.dim(static_cast<int64_t>(i));
                leading.insert(leading.begin(), outer % dim);
                outer /= dim;
            }
            setSlice(leading);
            const int64_t within = d.worstIndex % per;
            m_table->setCurrentIndex(
                m_model->index(static_cast<int>(within / columns), static_cast<int>(within % columns)));
        }
        return d;
    } catch (const std::exception& e) {
        m_compareResult->setText(QStringLiteral("<span style='color:#c62828'>%1</span>")
                                     .arg(QString::fromStdString(e.what()).toHtmlEscaped()));
        return std::nullopt;
    }
}

std::optional<TensorDiff> TensorInspector::compareWithFile(const QString& path)
{
    try {
        return compareWith(path, readTensorFile(path));
    } catch (const std::exception& e) {
        m_tabs->setCurrentIndex(CompareTab);
        m_compareResult->setText(QStringLiteral("<span style='color:#c62828'>%1</span>")
                                     .arg(QString::fromStdString(e.what()).toHtmlEscaped()));
        return std::nullopt;
    }
}

QString TensorInspector::compareText() const
{
    return m_compareResult->text();
}

void TensorInspector::showPair(const QString& title, const QString& labelA, const QString& labelB, const Value& a,
    const Value& b, Tolerance tolerance)
{
    if (a.isNone())
        setValue(title + QStringLiteral(" (B)"), b);
    else
        setValue(title + QStringLiteral(" (A)"), a);
    m_diff->setPair(title, labelA, labelB, a, b, tolerance);
    m_tabs->setCurrentIndex(DiffTab);
    updateSliceVisibility();
}

void TensorInspector::chooseValueToCompare()
{
    if (!m_candidates) {
        m_compareResult->setText(QStringLiteral("Run the model to compare with other values."));
        return;
    }
    const auto candidates = m_candidates();
    QStringList labels;
    for (const auto& [label, t] : candidates)
        if (t.defined() && t.size() == m_tensor.size())
            labels << label;
    if (labels.isEmpty()) {
        m_compareResult->setText(QStringLiteral("No other value has %1 elements.").arg(m_tensor.size()));
        return;
    }
    bool ok = false;
    const QString choice = QInputDialog::getItem(
        this, QStringLiteral("Compare with"), QStringLiteral("Value of the same size:"), labels, 0, false, &ok);
    if (!ok)
        return;
    for (const auto& [label, t] : candidates)
        if (label == choice) {
            compareWith(label, t);
            return;
        }
}

void TensorInspector::chooseFileToCompare()
{
    const QString path = QFileDialog::getOpenFileName(
        this, QStringLiteral("Compare with"), {}, QStringLiteral("Tensors (*.npy *.pb);;All files (*)"));
    if (!path.isEmpty())
        compareWithFile(path);
}

} // namespace onnxscope
