// SPDX-License-Identifier: MIT
#include "ui/tensorinspector/tensor_diff_view.h"

#include "engine/core/tensor_stats.h"
#include "ui/common/tensor_format.h"
#include "ui/tensorinspector/tensor_plots.h"
#include "ui/tensorinspector/tensor_table_model.h"

#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIdentityProxyModel>
#include <QLabel>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent>

#include <algorithm>
#include <cmath>
#include <queue>

namespace onnxscope {

namespace {

bool numeric(const Tensor& t)
{
    return t.defined() && t.dtype() != DataType::String;
}

/// |a - b| for ranking: infinity where NaN/Inf differ, NaN-free.
double difference(double a, double b)
{
    if (std::isfinite(a) && std::isfinite(b))
        return std::abs(a - b);
    const bool same = (std::isnan(a) && std::isnan(b)) || a == b;
    return same ? 0.0 : INFINITY;
}

QString number(double v)
{
    return QString::number(v, 'g', 7);
}

} // namespace

std::vector<ElementDifference> worstDifferences(const Tensor& a, const Tensor& b, size_t k)
{
    check(a.size() == b.size(),
        "the two tensors have " + std::to_string(a.size()) + " and " + std::to_string(b.size()) + " elements");
    check(numeric(a) && numeric(b), "only numeric tensors have element differences");
    // Min-heap on (difference, -index): the root is the smallest of the k kept, later indices lose ties.
    auto worse = [](const ElementDifference& x, const ElementDifference& y) {
        return x.absDiff != y.absDiff ? x.absDiff > y.absDiff : x.index < y.index;
    };
    std::priority_queue<ElementDifference, std::vector<ElementDifference>, decltype(worse)> heap(worse);
    constexpr int64_t kChunk = 1 << 16;
    std::vector<double> va(kChunk), vb(kChunk);
    for (int64_t begin = 0; begin < a.size() && k > 0; begin += kChunk) {
        const int64_t end = std::min(a.size(), begin + kChunk);
        copyAsDouble(a, begin, end, va.data());
        copyAsDouble(b, begin, end, vb.data());
        for (int64_t i = begin; i < end; ++i) {
            const double x = va[static_cast<size_t>(i - begin)], y = vb[static_cast<size_t>(i - begin)];
            const double d = difference(x, y);
            if (d == 0)
                continue;
            if (heap.size() == k && !worse({ i, x, y, d, 0 }, heap.top()))
                continue;
            heap.push({ i, x, y, d, y != 0 && std::isfinite(d) ? d / std::abs(y) : 0.0 });
            if (heap.size() > k)
                heap.pop();
        }
    }
    std::vector<ElementDifference> out;
    while (!heap.empty()) {
        out.push_back(heap.top());
        heap.pop();
    }
    std::reverse(out.begin(), out.end());
    return out;
}

Tensor differenceSlice(const Tensor& a, const Tensor& b, int64_t offset, int64_t rows, int64_t columns)
{
    Tensor out(DataType::Double, { rows, columns });
    auto d = out.data<double>();
    const int64_t n = rows * columns;
    std::vector<double> va(static_cast<size_t>(n)), vb(static_cast<size_t>(n));
    copyAsDouble(a, offset, offset + n, va.data());
    copyAsDouble(b, offset, offset + n, vb.data());
    for (int64_t i = 0; i < n; ++i) {
        const double x = difference(va[static_cast<size_t>(i)], vb[static_cast<size_t>(i)]);
        d[static_cast<size_t>(i)] = std::isinf(x) ? NAN : x;
    }
    return out;
}

/// Tints the cells of one side of the pair whose element is outside the tolerance, and adds both values to the
/// tooltip.
class DiffHighlightModel : public QIdentityProxyModel {
public:
    DiffHighlightModel(bool sideA, QObject* parent)
        : QIdentityProxyModel(parent)
        , m_sideA(sideA)
    {
    }
    void setOther(const Tensor& other, Tolerance tolerance, bool active)
    {
        m_other = other;
        m_tolerance = tolerance;
        m_active = active;
    }
    QVariant data(const QModelIndex& index, int role) const override
    {
        if (!m_active || (role != Qt::BackgroundRole && role != Qt::ToolTipRole))
            return QIdentityProxyModel::data(index, role);
        auto* source = static_cast<TensorTableModel*>(sourceModel());
        const QModelIndex s = mapToSource(index);
        const int64_t flat = source->elementIndex(s.row(), s.column());
        if (flat < 0 || flat >= m_other.size())
            return QIdentityProxyModel::data(index, role);
        const double own = source->tensor().toDouble(flat);
        const double other = m_other.toDouble(flat);
        const double a = m_sideA ? own : other, b = m_sideA ? other : own;
        const double d = difference(a, b);
        if (role == Qt::ToolTipRole)
            return QStringLiteral("A %1 \u00b7 B %2 \u00b7 |A \u2212 B| %3")
                .arg(number(a), number(b), std::isinf(d) ? QStringLiteral("NaN/Inf differ") : number(d));
        if (std::isinf(d))
            return QColor(0xe1, 0xbe, 0xe7);
        if (d > m_tolerance.atol + m_tolerance.rtol * std::abs(b))
            return QColor(0xfd, 0xd8, 0xd3);
        return {};
    }

private:
    bool m_sideA;
    Tensor m_other;
    Tolerance m_tolerance;
    bool m_active = false;
};

TensorDiffView::TensorDiffView(QWidget* parent)
    : QWidget(parent)
    , m_header(new QLabel(this))
    , m_summary(new QLabel(this))
    , m_sliceLayout(new QHBoxLayout)
    , m_captionA(new QLabel(this))
    , m_captionB(new QLabel(this))
    , m_modelA(new TensorTableModel(this))
    , m_modelB(new TensorTableModel(this))
    , m_highlightA(new DiffHighlightModel(true, this))
    , m_highlightB(new DiffHighlightModel(false, this))
    , m_tableA(new QTableView(this))
    , m_tableB(new QTableView(this))
    , m_heatmap(new HeatmapWidget(this))
    , m_heatmapCaption(new QLabel(this))
    , m_worstTable(new QTableWidget(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    for (QLabel* label : { m_header, m_summary }) {
        label->setTextFormat(Qt::RichText);
        label->setWordWrap(true);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
        layout->addWidget(label);
    }
    layout->addLayout(m_sliceLayout);

    m_highlightA->setSourceModel(m_modelA);
    m_highlightB->setSourceModel(m_modelB);
    auto makeSide = [this](QLabel* caption, QTableView* table, QAbstractItemModel* model) {
        auto* side = new QWidget(this);
        auto* l = new QVBoxLayout(side);
        l->setContentsMargins(0, 0, 0, 0);
        l->setSpacing(2);
        caption->setTextFormat(Qt::RichText);
        l->addWidget(caption);
        table->setModel(model);
        table->horizontalHeader()->setDefaultSectionSize(78);
        table->verticalHeader()->setDefaultSectionSize(20);
        table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
        table->horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
        l->addWidget(table, 1);
        return side;
    };
    auto* sides = new QSplitter(Qt::Horizontal, this);
    sides->addWidget(makeSide(m_captionA, m_tableA, m_highlightA));
    sides->addWidget(makeSide(m_captionB, m_tableB, m_highlightB));

    auto* heatSide = new QWidget(this);
    auto* hl = new QVBoxLayout(heatSide);
    hl->setContentsMargins(0, 0, 0, 0);
    hl->setSpacing(2);
    m_heatmapCaption->setTextFormat(Qt::RichText);
    hl->addWidget(m_heatmapCaption);
    hl->addWidget(makeHeatmapPage(m_heatmap, QStringLiteral("diffHeatmapColours"), heatSide), 1);
    m_worstTable->setColumnCount(5);
    m_worstTable->setHorizontalHeaderLabels({ QStringLiteral("Index"), QStringLiteral("A"), QStringLiteral("B"),
        QStringLiteral("|A \u2212 B|"), QStringLiteral("rel") });
    m_worstTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_worstTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_worstTable->setSelectionMode(QAbstractItemView::SingleSelection);
    m_worstTable->verticalHeader()->setDefaultSectionSize(20);
    m_worstTable->horizontalHeader()->setStretchLastSection(true);
    m_worstTable->setToolTip(
        QStringLiteral("The elements with the largest |A \u2212 B|; choose one to show it in both tables"));
    auto* worstSide = new QWidget(this);
    auto* wl = new QVBoxLayout(worstSide);
    wl->setContentsMargins(0, 0, 0, 0);
    wl->setSpacing(2);
    auto* worstCaption = new QLabel(QStringLiteral("<b>Worst indices</b> (largest |A \u2212 B|)"), this);
    wl->addWidget(worstCaption);
    wl->addWidget(m_worstTable, 1);
    auto* bottom = new QSplitter(Qt::Horizontal, this);
    bottom->addWidget(heatSide);
    bottom->addWidget(worstSide);
    bottom->setStretchFactor(0, 2);
    bottom->setStretchFactor(1, 3);
    bottom->setSizes({ 2000, 3000 });

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(sides);
    split->addWidget(bottom);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({ 1000, 1000 });
    // Docks are short: the tables get the height, the heatmap and the list shrink first.
    m_heatmap->setMinimumSize(120, 48);
    m_worstTable->setMinimumHeight(48);
    layout->addWidget(split, 1);

    // The two tables scroll together, and selecting a cell in one selects it in the other.
    for (auto [from, to] : { std::pair { m_tableA, m_tableB }, std::pair { m_tableB, m_tableA } }) {
        connect(from->verticalScrollBar(), &QScrollBar::valueChanged, to->verticalScrollBar(), &QScrollBar::setValue);
        connect(
            from->horizontalScrollBar(), &QScrollBar::valueChanged, to->horizontalScrollBar(), &QScrollBar::setValue);
        QTableView* other = to;
        connect(
            from->selectionModel(), &QItemSelectionModel::currentChanged, this, [other](const QModelIndex& current) {
                if (current.isValid()
                    && other->currentIndex() != other->model()->index(current.row(), current.column()))
                    other->setCurrentIndex(other->model()->index(current.row(), current.column()));
            });
    }
    connect(m_worstTable, &QTableWidget::currentCellChanged, this, [this](int row) {
        if (row >= 0 && static_cast<size_t>(row) < m_worst.size())
            goToElement(m_worst[static_cast<size_t>(row)].index);
    });
    connect(m_heatmap, &HeatmapWidget::hovered, this, [this](qint64 row, qint64 column, double) {
        const int64_t flat = m_modelA->elementIndex(static_cast<int>(row), static_cast<int>(column));
        if (flat >= 0 && flat < m_a.size() && flat < m_b.size())
            m_heatmap->setToolTip(QStringLiteral("%1: A %2 \u00b7 B %3")
                                      .arg(indexText(flat), number(m_a.toDouble(flat)), number(m_b.toDouble(flat))));
    });
    clear();
}

TensorDiffView::~TensorDiffView()
{
    ++m_generation;
}

void TensorDiffView::clear()
{
    ++m_generation;
    m_title.clear();
    m_a = m_b = Tensor();
    m_ready = false;
    m_sameCount = false;
    m_worst.clear();
    m_comparison.reset();
    m_modelA->setTensor(Tensor());
    m_modelB->setTensor(Tensor());
    m_highlightA->setOther(Tensor(), {}, false);
    m_highlightB->setOther(Tensor(), {}, false);
    m_heatmap->clear();
    m_worstTable->setRowCount(0);
    m_header->setText(QStringLiteral(
        "<span style='color:#6b7280'>Compare two runs (Debug \u203a Compare\u2026), then choose Diff on a "
        "matched value in the Compare Results or Values dock.</span>"));
    m_summary->clear();
    m_captionA->setText(QStringLiteral("<b>A</b>"));
    m_captionB->setText(QStringLiteral("<b>B</b>"));
    m_heatmapCaption->setText(QStringLiteral("<b>|A \u2212 B|</b> of the slice"));
    rebuildSliceControls();
}

void TensorDiffView::setPair(const QString& title, const QString& labelA, const QString& labelB, const Value& a,
    const Value& b, Tolerance tolerance)
{
    clear();
    m_title = title;
    m_labelA = labelA;
    m_labelB = labelB;
    m_tolerance = tolerance;
    const Tensor* ta = a.heldTensor();
    const Tensor* tb = b.heldTensor();
    m_a = ta ? *ta : Tensor();
    m_b = tb ? *tb : Tensor();
    auto describe = [](const Value& v, const Tensor& t) {
        if (v.isNone())
            return QStringLiteral("(none)");
        if (!t.defined())
            return QString::fromStdString(v.typeString());
        const auto dtype = dataTypeName(t.dtype());
        return QStringLiteral("%1 \u27e8%2\u27e9")
            .arg(QString::fromUtf8(dtype.data(), static_cast<qsizetype>(dtype.size())), formatShape(t.shape()));
    };
    // The inspector's header names the value; the captions say which side is which.
    m_header->hide();
    m_captionA->setText(QStringLiteral("<b>A</b> %1 \u00b7 %2").arg(labelA.toHtmlEscaped(), describe(a, m_a)));
    m_captionB->setText(QStringLiteral("<b>B</b> %1 \u00b7 %2").arg(labelB.toHtmlEscaped(), describe(b, m_b)));
    m_modelA->setTensor(m_a);
    m_modelB->setTensor(m_b);
    // Both sides one width, so that the same element sits at the same place.
    const int width = std::max(
        elementColumnWidth(m_a, m_tableA->fontMetrics(), 78), elementColumnWidth(m_b, m_tableB->fontMetrics(), 78));
    m_tableA->horizontalHeader()->setDefaultSectionSize(width);
    m_tableB->horizontalHeader()->setDefaultSectionSize(width);
    m_sameCount = m_a.defined() && m_b.defined() && m_a.size() == m_b.size() && numeric(m_a) && numeric(m_b);
    m_highlightA->setOther(m_b, tolerance, m_sameCount);
    m_highlightB->setOther(m_a, tolerance, m_sameCount);
    rebuildSliceControls();
    if (a.isNone() || b.isNone()) {
        m_summary->setText(
            QStringLiteral("<span style='color:#b45309'>Only one side has this value: nothing to diff.</span>"));
        m_ready = true;
        emit computed();
        return;
    }
    m_summary->setText(QStringLiteral("<span style='color:#6b7280'>comparing\u2026</span>"));
    struct Result {
        PairComparison comparison;
        std::vector<ElementDifference> worst;
    };
    const quint64 generation = ++m_generation;
    auto* watcher = new QFutureWatcher<Result>(this);
    connect(watcher, &QFutureWatcher<Result>::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        if (generation != m_generation)
            return;
        Result r = watcher->result();
        m_comparison = r.comparison;
        m_worst = std::move(r.worst);
        showComputed();
    });
    const Value va = a, vb = b;
    const Tensor tA = m_a, tB = m_b;
    const bool sameCount = m_sameCount;
    watcher->setFuture(QtConcurrent::run([va, vb, tA, tB, sameCount, tolerance] {
        Result r;
        r.comparison = compareValuePair(va, vb, tolerance);
        if (sameCount)
            r.worst = worstDifferences(tA, tB, kWorst);
        return r;
    }));
}

void TensorDiffView::showComputed()
{
    const PairComparison& c = *m_comparison;
    const ValueStats& s = c.stats;
    const std::string_view status = compareStatusName(c.status);
    QString text
        = QStringLiteral("<b>%1</b>").arg(QString::fromUtf8(status.data(), static_cast<qsizetype>(status.size())));
    if (c.status == CompareStatus::Match || c.status == CompareStatus::Mismatch) {
        if (s.numeric)
            text += QStringLiteral(" \u00b7 max abs <b>%1</b> \u00b7 max rel <b>%2</b> \u00b7 cosine %3")
                        .arg(QString::number(s.maxAbsError, 'g', 4), QString::number(s.maxRelError, 'g', 4),
                            number(s.cosine));
        text += QStringLiteral(" \u00b7 <b>%1</b> of %2 outside rtol %3, atol %4")
                    .arg(s.mismatches)
                    .arg(s.elements)
                    .arg(m_tolerance.rtol, 0, 'g', 3)
                    .arg(m_tolerance.atol, 0, 'g', 3);
        m_summary->setToolTip(
            QStringLiteral("mean abs error %1 \u00b7 error \u00f7 tolerance %2 \u00b7 worst flat index %3")
                .arg(number(s.meanAbsError), number(s.toleranceRatio))
                .arg(s.worstIndex));
        if (s.nonFiniteMismatches > 0)
            text += QStringLiteral("<br><span style='color:#8e24aa'>%1 elements where NaN/Inf differ (NaN A/B %2/%3, "
                                   "Inf A/B %4/%5)</span>")
                        .arg(s.nonFiniteMismatches)
                        .arg(s.nanA)
                        .arg(s.nanB)
                        .arg(s.infA)
                        .arg(s.infB);
    } else if (!c.note.empty()) {
        text += QStringLiteral(" \u00b7 ") + QString::fromStdString(c.note).toHtmlEscaped();
    }
    if (!m_sameCount && m_a.defined() && m_b.defined())
        text += QStringLiteral(
            "<br><span style='color:#b45309'>The element counts differ: the tables show each side on its own.</span>");
    m_summary->setText(text);
    m_worstTable->setRowCount(static_cast<int>(m_worst.size()));
    for (size_t i = 0; i < m_worst.size(); ++i) {
        const ElementDifference& d = m_worst[i];
        const int row = static_cast<int>(i);
        const QStringList cells { indexText(d.index), number(d.a), number(d.b),
            std::isinf(d.absDiff) ? QStringLiteral("NaN/Inf") : number(d.absDiff),
            std::isinf(d.absDiff) ? QString() : number(d.relDiff) };
        for (int c2 = 0; c2 < cells.size(); ++c2) {
            auto* item = new QTableWidgetItem(cells[c2]);
            if (c2 > 0)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_worstTable->setItem(row, c2, item);
        }
    }
    m_worstTable->resizeColumnsToContents();
    m_ready = true;
    // Open on the worst element, as a debugger's diff jumps to the first difference.
    if (!m_worst.empty()) {
        const QSignalBlocker blocker(m_worstTable);
        m_worstTable->setCurrentCell(0, 0);
        goToElement(m_worst.front().index);
    } else {
        updateHeatmap();
    }
    emit computed();
}

QString TensorDiffView::summaryText() const
{
    return m_summary->text();
}

QString TensorDiffView::indexText(int64_t flat) const
{
    if (flat < 0 || !m_a.defined())
        return QStringLiteral("-");
    std::vector<int64_t> idx(m_a.shape().size());
    int64_t rest = flat;
    for (size_t i = idx.size(); i-- > 0;) {
        const int64_t d = std::max<int64_t>(m_a.shape()[i], 1);
        idx[i] = rest % d;
        rest /= d;
    }
    QStringList parts;
    for (int64_t i : idx)
        parts << QString::number(i);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

void TensorDiffView::rebuildSliceControls()
{
    for (QSpinBox* box : m_sliceBoxes)
        delete box;
    m_sliceBoxes.clear();
    while (QLayoutItem* item = m_sliceLayout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    const Tensor& t = m_a.defined() ? m_a : m_b;
    if (!t.defined() || t.rank() <= 2)
        return;
    m_sliceLayout->addWidget(new QLabel(QStringLiteral("Slice:"), this));
    for (int64_t axis = 0; axis + 2 < t.rank(); ++axis) {
        auto* box = new QSpinBox(this);
        box->setRange(0, static_cast<int>(std::max<int64_t>(t.dim(axis) - 1, 0)));
        box->setPrefix(QStringLiteral("axis %1 = ").arg(axis));
        box->setSuffix(QStringLiteral(" / %1").arg(t.dim(axis)));
        connect(box, &QSpinBox::valueChanged, this, &TensorDiffView::sliceChanged);
        m_sliceLayout->addWidget(box);
        m_sliceBoxes.push_back(box);
    }
    m_sliceLayout->addWidget(
        new QLabel(QStringLiteral("rows: axis %1 \u00b7 columns: axis %2").arg(t.rank() - 2).arg(t.rank() - 1), this));
    m_sliceLayout->addStretch(1);
}

void TensorDiffView::setSlice(const std::vector<int64_t>& leading)
{
    for (size_t i = 0; i < leading.size() && i < m_sliceBoxes.size(); ++i) {
        const QSignalBlocker blocker(m_sliceBoxes[i]);
        m_sliceBoxes[i]->setValue(static_cast<int>(leading[i]));
    }
    sliceChanged();
}

void TensorDiffView::sliceChanged()
{
    std::vector<int64_t> slice;
    for (QSpinBox* box : m_sliceBoxes)
        slice.push_back(box->value());
    m_modelA->setSlice(slice);
    m_modelB->setSlice(slice);
    updateHeatmap();
}

void TensorDiffView::updateHeatmap()
{
    if (!m_sameCount || m_a.size() == 0) {
        m_heatmap->clear();
        return;
    }
    const int64_t rows = m_modelA->rowCount();
    const int64_t columns = m_modelA->columnCount();
    const int64_t offset = m_modelA->elementIndex(0, 0);
    if (rows <= 0 || columns <= 0 || offset < 0) {
        m_heatmap->clear();
        return;
    }
    // Very large slices: only the rows the heatmap can draw (it samples at most kMaxSide per side).
    const int64_t drawnRows = std::min<int64_t>(rows, HeatmapWidget::kMaxSide);
    if (drawnRows == rows && rows * columns <= (int64_t(1) << 24)) {
        m_heatmap->setSlice(differenceSlice(m_a, m_b, offset, rows, columns), 0, rows, columns);
    } else {
        Tensor sampled(DataType::Double, { drawnRows, columns });
        auto out = sampled.data<double>();
        for (int64_t r = 0; r < drawnRows; ++r) {
            const Tensor line = differenceSlice(m_a, m_b, offset + (r * rows / drawnRows) * columns, 1, columns);
            std::copy(line.data<double>().begin(), line.data<double>().end(), out.begin() + r * columns);
        }
        m_heatmap->setSlice(sampled, 0, drawnRows, columns);
    }
    m_heatmapCaption->setText(QStringLiteral("<b>|A \u2212 B|</b> of the slice (%1 \u00d7 %2; magenta: NaN/Inf differ)")
                                  .arg(rows)
                                  .arg(columns));
}

void TensorDiffView::goToElement(int64_t flat)
{
    const Tensor& t = m_a.defined() ? m_a : m_b;
    if (!t.defined() || flat < 0 || flat >= t.size())
        return;
    const int64_t columns = std::max(m_modelA->columnCount(), 1);
    const int64_t rows = std::max(m_modelA->rowCount(), 1);
    const int64_t per = t.rank() >= 2 ? t.dim(t.rank() - 1) * t.dim(t.rank() - 2) : rows * columns;
    std::vector<int64_t> leading;
    int64_t outer = per > 0 ? flat / per : 0;
    for (size_t i = m_sliceBoxes.size(); i-- > 0;) {
        const int64_t dim = std::max<int64_t>(t.dim(static_cast<int64_t>(i)), 1);
        leading.insert(leading.begin(), outer % dim);
        outer /= dim;
    }
    setSlice(leading);
    const int64_t within = per > 0 ? flat % per : 0;
    const int64_t c = std::max(m_modelA->columnCount(), 1);
    const QModelIndex index = m_highlightA->index(static_cast<int>(within / c), static_cast<int>(within % c));
    m_tableA->setCurrentIndex(index);
    m_tableA->scrollTo(index, QAbstractItemView::PositionAtCenter);
    m_tableB->setCurrentIndex(m_highlightB->index(index.row(), index.column()));
    m_tableB->scrollTo(m_highlightB->index(index.row(), index.column()), QAbstractItemView::PositionAtCenter);
}

} // namespace onnxscope
