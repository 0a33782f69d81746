// SPDX-License-Identifier: MIT
#include "ui/compare/compare_model.h"

#include <QColor>
#include <QFont>

#include <cmath>
#include <limits>

namespace onnxscope {

namespace {

QString number(double v)
{
    if (std::isnan(v))
        return QStringLiteral("nan");
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return QString::number(v, 'g', 4);
}

bool hasStats(const CompareRow& r)
{
    return (r.status == CompareStatus::Match || r.status == CompareStatus::Mismatch) && r.stats.numeric;
}

} // namespace

CompareRowsModel::CompareRowsModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void CompareRowsModel::setSession(CompareSessionPtr session)
{
    beginResetModel();
    m_session = std::move(session);
    m_root.assign(m_session ? m_session->result.rows.size() : 0, 0);
    if (m_session) {
        const ComparisonResult& res = m_session->result;
        for (size_t i = 0; i < res.nodes.size(); ++i) {
            const NodeCompare& n = res.nodes[i];
            if (!n.root)
                continue;
            const char mark = res.firstDivergence && *res.firstDivergence == i ? 2 : 1;
            for (size_t r : n.rows)
                m_root[r] = std::max(m_root[r], mark);
        }
    }
    endResetModel();
}

void CompareRowsModel::setMetric(ErrorMetric metric)
{
    m_metric = metric;
    if (rowCount() > 0)
        emit dataChanged(index(0, StatusColumn), index(rowCount() - 1, StatusColumn), { Qt::BackgroundRole });
}

const CompareRow* CompareRowsModel::rowAt(int row) const
{
    if (!m_session || row < 0 || static_cast<size_t>(row) >= m_session->result.rows.size())
        return nullptr;
    return &m_session->result.rows[static_cast<size_t>(row)];
}

int CompareRowsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_session ? 0 : static_cast<int>(m_session->result.rows.size());
}

int CompareRowsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CompareRowsModel::data(const QModelIndex& index, int role) const
{
    const CompareRow* r = index.isValid() ? rowAt(index.row()) : nullptr;
    if (!r)
        return {};
    const int root = m_root[static_cast<size_t>(index.row())];
    switch (role) {
    case RowIndexRole:
        return index.row();
    case StatusRole:
        return static_cast<int>(r->status);
    case RootRole:
        return root;
    case OriginRole:
        return static_cast<int>(r->origin);
    case FilterRole:
        return QString::fromStdString(
            r->name + ' ' + r->nameB + ' ' + r->node + ' ' + r->opType + ' ' + r->framePath + ' ' + r->nodeB);
    case Qt::FontRole:
        if (root == 2) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    case Qt::BackgroundRole:
        if (index.column() == StatusColumn) {
            QColor c = CompareColours::forRow(*r, m_metric);
            c.setAlpha(r->status == CompareStatus::Match ? 70 : 110);
            return c;
        }
        if (root == 2)
            return QColor(0xfd, 0xec, 0xea);
        return {};
    case Qt::ForegroundRole:
        if (r->status == CompareStatus::OnlyA || r->status == CompareStatus::OnlyB
            || r->status == CompareStatus::Skipped)
            return QColor(0x6b, 0x72, 0x80);
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == OrderColumn || index.column() == IterationColumn
            || (index.column() >= MaxAbsColumn && index.column() <= MismatchesColumn))
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ToolTipRole: {
        QString tip
            = QStringLiteral("%1 / %2").arg(QString::fromStdString(r->framePath), QString::fromStdString(r->name));
        if (r->status != CompareStatus::OnlyA && r->status != CompareStatus::OnlyB) {
            tip += QStringLiteral("\ncounterpart on side B: %1 / %2")
                       .arg(QString::fromStdString(r->frameB), QString::fromStdString(r->nameB));
            if (!r->nodeB.empty())
                tip += QStringLiteral(", made by %1 (%2)")
                           .arg(QString::fromStdString(r->nodeB), QString::fromStdString(r->opTypeB));
            tip += QStringLiteral(", paired by %1").arg(QString::fromLatin1(pairedByName(r->pairedBy).data()));
            if (r->pairedBy == PairedBy::Content)
                tip += QStringLiteral(" (sketch distance %1)").arg(number(r->alignDistance));
        }
        if (hasStats(*r))
            tip += QStringLiteral("\nmean abs error %1 \u00b7 error \u00f7 tolerance %2 \u00b7 worst flat index %3")
                       .arg(number(r->stats.meanAbsError), number(r->stats.toleranceRatio))
                       .arg(r->stats.worstIndex);
        if (r->stats.nanA + r->stats.nanB + r->stats.infA + r->stats.infB > 0)
            tip += QStringLiteral("\nNaN A/B %1/%2 \u00b7 Inf A/B %3/%4 \u00b7 %5 NaN/Inf differ")
                       .arg(r->stats.nanA)
                       .arg(r->stats.nanB)
                       .arg(r->stats.infA)
                       .arg(r->stats.infB)
                       .arg(r->stats.nonFiniteMismatches);
        if (!r->note.empty())
            tip += QLatin1Char('\n') + QString::fromStdString(r->note);
        if (root == 2)
            tip += QStringLiteral("\nFirst divergence: this node's outputs differ while all its inputs match.");
        else if (root == 1)
            tip += QStringLiteral("\nA root of a difference: its inputs match, its outputs do not.");
        return tip;
    }
    case Qt::DisplayRole:
    case SortRole:
        break;
    default:
        return {};
    }
    const bool sort = role == SortRole;
    const bool stats = hasStats(*r);
    switch (index.column()) {
    case OrderColumn:
        if (sort)
            return index.row();
        if (r->origin == ValueOrigin::GraphInput)
            return QStringLiteral("input");
        if (r->origin == ValueOrigin::Initializer)
            return QStringLiteral("init");
        if (r->sequence == 0)
            return QString();
        return r->status == CompareStatus::OnlyB ? QStringLiteral("B %1").arg(r->sequence)
                                                 : QString::number(r->sequence);
    case FrameColumn:
        return QString::fromStdString(r->framePath);
    case IterationColumn:
        if (sort)
            return static_cast<qlonglong>(r->iteration);
        return r->iteration >= 0 ? QString::number(r->iteration) : QString();
    case NodeColumn: {
        const QString node = QString::fromStdString(r->node);
        if (sort)
            return node;
        return root == 2 ? QStringLiteral("1st \u2260 ") + node : root == 1 ? QStringLiteral("\u2260 ") + node : node;
    }
    case OpColumn:
        return QString::fromStdString(r->opType);
    case ValueColumn: {
        QString text = QString::fromStdString(r->name);
        if (!sort && r->status != CompareStatus::OnlyB && r->status != CompareStatus::OnlyA && r->nameB != r->name)
            text += QStringLiteral(" \u2192 ") + QString::fromStdString(r->nameB);
        return text;
    }
    case CounterpartColumn: {
        if (r->status == CompareStatus::OnlyA || r->status == CompareStatus::OnlyB)
            return QString();
        if (r->nodeB.empty())
            return QString::fromStdString(r->nameB);
        QString text
            = QStringLiteral("%1 (%2)").arg(QString::fromStdString(r->nodeB), QString::fromStdString(r->opTypeB));
        if (!sort && r->pairedBy == PairedBy::Content)
            text += QStringLiteral(" · by content");
        return text;
    }
    case TypeAColumn:
        return QString::fromStdString(r->typeA);
    case TypeBColumn:
        return QString::fromStdString(r->typeB);
    case MaxAbsColumn:
    case MaxRelColumn:
    case CosineColumn: {
        if (!stats)
            return sort ? QVariant(-std::numeric_limits<double>::max()) : QVariant();
        const double v = index.column() == MaxAbsColumn ? r->stats.maxAbsError
            : index.column() == MaxRelColumn            ? r->stats.maxRelError
                                                        : r->stats.cosine;
        return sort ? QVariant(v) : QVariant(number(v));
    }
    case MismatchesColumn:
        if (r->status != CompareStatus::Match && r->status != CompareStatus::Mismatch)
            return sort ? QVariant(-1LL) : QVariant();
        if (sort)
            return static_cast<qlonglong>(r->stats.mismatches);
        return QStringLiteral("%1 / %2").arg(r->stats.mismatches).arg(r->stats.elements);
    case StatusColumn:
        if (sort)
            return static_cast<int>(
                isDivergent(r->status) ? 10 + static_cast<int>(r->status) : static_cast<int>(r->status));
        return CompareColours::statusLabel(r->status)
            + (r->stats.nonFiniteMismatches > 0 ? QStringLiteral(" (NaN/Inf)") : QString());
    case NoteColumn:
        return QString::fromStdString(r->note);
    default:
        return {};
    }
}

QVariant CompareRowsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    static const char* names[] = { "#", "Frame", "Iter", "Node", "Op", "Value", "Counterpart (B)", "Status",
        "Max abs err", "Max rel err", "Cosine", "Mismatches", "Type A", "Type B", "Note" };
    static const char* tips[] = { "Execution order on side A (B n: order on side B for values only B has)",
        "Frame path", "Loop iteration / Scan step", "Producing node", "Op type",
        "Value name (\u2192 its name on side B when it differs)",
        "The node of side B that produced the paired value (\u201cby content\u201d: aligned by shape and content)",
        "Comparison status", "max |a \u2212 b|", "max |a \u2212 b| / |b| over elements with b \u2260 0",
        "Cosine similarity of the finite elements", "Elements outside |a \u2212 b| \u2264 atol + rtol\u00b7|b|",
        "Type on side A", "Type on side B", "Why a value could not be compared" };
    if (section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole)
        return QString::fromUtf8(names[section]);
    if (role == Qt::ToolTipRole)
        return QString::fromUtf8(tips[section]);
    return {};
}

CompareFilterModel::CompareFilterModel(QObject* parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(CompareRowsModel::SortRole);
}

void CompareFilterModel::setText(const QString& text)
{
    m_text = text.trimmed();
    invalidateFilter();
}

void CompareFilterModel::setShow(Show show)
{
    m_show = show;
    invalidateFilter();
}

void CompareFilterModel::setInitializersShown(bool shown)
{
    m_initializers = shown;
    invalidateFilter();
}

bool CompareFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    const auto status = static_cast<CompareStatus>(index.data(CompareRowsModel::StatusRole).toInt());
    if (!m_initializers
        && static_cast<ValueOrigin>(index.data(CompareRowsModel::OriginRole).toInt()) == ValueOrigin::Initializer)
        return false;
    switch (m_show) {
    case Show::All:
        break;
    case Show::Divergent:
        if (!isDivergent(status))
            return false;
        break;
    case Show::Unmatched:
        if (status != CompareStatus::OnlyA && status != CompareStatus::OnlyB && status != CompareStatus::Skipped)
            return false;
        break;
    case Show::Matched:
        if (status != CompareStatus::Match)
            return false;
        break;
    case Show::Roots:
        if (index.data(CompareRowsModel::RootRole).toInt() == 0)
            return false;
        break;
    }
    if (m_text.isEmpty())
        return true;
    const QString haystack = index.data(CompareRowsModel::FilterRole).toString();
    for (const QString& word : m_text.split(QLatin1Char(' '), Qt::SkipEmptyParts))
        if (!haystack.contains(word, Qt::CaseInsensitive))
            return false;
    return true;
}

} // namespace onnxscope
