// SPDX-License-Identifier: MIT
#include "ui/debugger/values_model.h"

#include "ui/common/compare_colours.h"
#include "ui/common/tensor_format.h"

#include <QColor>

#include <limits>

namespace onnxscope {

namespace {

QString number(double v)
{
    return QString::number(v, 'g', 6);
}

} // namespace

ValuesModel::ValuesModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void ValuesModel::setSnapshot(DebugSnapshotPtr snapshot)
{
    beginResetModel();
    m_snapshot = std::move(snapshot);
    endResetModel();
}

void ValuesModel::setComparison(ValueComparisonPtr comparison)
{
    beginResetModel();
    m_comparison = std::move(comparison);
    endResetModel();
}

const CompareRow* ValuesModel::compareRowOf(int row) const
{
    const ValueSnapshot* vs = m_comparison ? valueAt(row) : nullptr;
    if (!vs)
        return nullptr;
    const int64_t index = m_comparison->rowOf(vs->record.framePath, vs->record.name);
    return index < 0 ? nullptr : &m_comparison->comparisonResult().rows[static_cast<size_t>(index)];
}

const ValueSnapshot* ValuesModel::valueAt(int row) const
{
    if (!m_snapshot || row < 0 || static_cast<size_t>(row) >= m_snapshot->values.size())
        return nullptr;
    return &m_snapshot->values[static_cast<size_t>(row)];
}

int ValuesModel::rowOf(const std::string& name, uint64_t frameId) const
{
    if (!m_snapshot)
        return -1;
    for (size_t i = m_snapshot->values.size(); i-- > 0;) {
        const auto& r = m_snapshot->values[i].record;
        if (r.name == name && (frameId == 0 || r.frameId == frameId))
            return static_cast<int>(i);
    }
    return -1;
}

int ValuesModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() || !m_snapshot)
        return 0;
    return static_cast<int>(m_snapshot->values.size()) + (m_snapshot->summarising ? 1 : 0);
}

bool ValuesModel::isPlaceholder(int row) const
{
    return m_snapshot && m_snapshot->summarising && row == static_cast<int>(m_snapshot->values.size());
}

QVariant ValuesModel::placeholderData(int column, int role) const
{
    switch (role) {
    case ValueIndexRole:
    case CompareRowRole:
        return -1;
    case FrameIdRole:
        return 0ULL;
    case Qt::ForegroundRole:
        return QColor(0x9c, 0xa3, 0xaf);
    case Qt::ToolTipRole:
        return QStringLiteral("The run stopped after running as a plain run does; the values it made since the last "
                              "stop are being recorded and summarised, and appear here when ready.");
    case SortRole: // last in execution order, after every value
        return column == IterationColumn || column == NanColumn || column == InfColumn
            ? QVariant(std::numeric_limits<qlonglong>::max())
            : QVariant();
    case Qt::DisplayRole:
        if (column == NameColumn)
            return QStringLiteral("Summarising\u2026");
        return column >= MinColumn && column <= InfColumn ? QStringLiteral("\u2026") : QString();
    default:
        return {};
    }
}

int ValuesModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : m_comparison ? ColumnCount : BaseColumnCount;
}

QVariant ValuesModel::data(const QModelIndex& index, int role) const
{
    if (index.isValid() && isPlaceholder(index.row()))
        return placeholderData(index.column(), role);
    const ValueSnapshot* vs = index.isValid() ? valueAt(index.row()) : nullptr;
    if (!vs)
        return {};
    const RecordedValue& r = vs->record;
    if (role == ValueIndexRole)
        return index.row();
    if (role == FrameIdRole)
        return static_cast<qulonglong>(r.frameId);
    if (role == CompareRowRole) {
        const int64_t compareRow = m_comparison ? m_comparison->rowOf(r.framePath, r.name) : -1;
        return static_cast<int>(compareRow);
    }
    if (index.column() >= BaseColumnCount)
        return compareData(index.column(), role, compareRowOf(index.row()));
    const Node* producer = r.graph && r.producer >= 0 ? &r.graph->node(r.producer) : nullptr;
    if (role == FilterRole)
        return QString::fromStdString(
            r.name.str() + ' ' + (producer ? producer->displayName() + ' ' + producer->opType : std::string("input")));
    const Tensor* t = r.dropped ? nullptr : r.value.heldTensor();
    const TensorStats* s = vs->stats && vs->stats->numeric ? &*vs->stats : nullptr;
    // A dropped value (only its summary kept) reads like a kept one, from its summary; opening it rebuilds the data.
    const ValueDigest* digest = r.dropped && r.summary.valid ? &r.summary : nullptr;
    if (role == Qt::ForegroundRole) {
        if (r.dropped && !digest)
            return QColor(0x9c, 0xa3, 0xaf);
        if ((index.column() == NanColumn || index.column() == InfColumn) && s && s->nonFinite() > 0)
            return QColor(0xc6, 0x28, 0x28);
        return {};
    }
    if (role == Qt::ToolTipRole) {
        if (r.dropped)
            return QString::fromStdString(r.framePath.str() + " / " + r.name.str() + " : "
                       + (digest ? digest->typeString() : std::string("?")))
                + QStringLiteral(
                    "\nOnly its summary is kept: opening it rebuilds the data from the nearest checkpoint");
        return QString::fromStdString(r.framePath.str() + " / " + r.name.str() + " : " + r.value.typeString());
    }
    if (role == Qt::TextAlignmentRole && index.column() >= IterationColumn && index.column() != TypeColumn
        && index.column() != ShapeColumn)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    const bool sort = role == SortRole;
    if (role != Qt::DisplayRole && !sort)
        return {};
    switch (index.column()) {
    case NameColumn:
        return QString::fromStdString(r.name) + (!r.tracePoint ? QString() : QStringLiteral(" \u25c6"));
    case ProducerColumn:
        return producer ? QStringLiteral("%1 (%2)").arg(
                   QString::fromStdString(producer->displayName()), QString::fromStdString(producer->opType))
                        : QStringLiteral("(input)");
    case FrameColumn:
        return QString::fromStdString(r.framePath);
    case IterationColumn:
        if (sort)
            return static_cast<qlonglong>(r.iteration);
        return r.iteration >= 0 ? QString::number(r.iteration) : QString();
    case TypeColumn:
        if (digest)
            return digest->kind == Value::Kind::Tensor ? QString::fromUtf8(dataTypeName(digest->dtype).data())
                                                       : QString::fromStdString(digest->typeString());
        if (r.dropped)
            return QStringLiteral("(dropped)");
        return t ? QString::fromUtf8(dataTypeName(t->dtype()).data()) : QString::fromStdString(r.value.typeString());
    case ShapeColumn:
        if (digest && digest->kind == Value::Kind::Tensor) {
            const Shape shape = digest->shape();
            return sort ? QVariant(static_cast<qlonglong>(elementCount(shape))) : QVariant(formatShape(shape));
        }
        if (sort)
            return t ? static_cast<qlonglong>(t->size()) : -1LL;
        return t ? formatShape(t->shape()) : QString();
    case MinColumn:
    case MaxColumn:
    case MeanColumn:
    case StdColumn: {
        if (!s || s->finite == 0)
            return sort ? QVariant(-std::numeric_limits<double>::max()) : QVariant();
        const double v = index.column() == MinColumn ? s->min
            : index.column() == MaxColumn            ? s->max
            : index.column() == MeanColumn           ? s->mean
                                                     : s->std;
        return sort ? QVariant(v) : QVariant(number(v));
    }
    case NanColumn:
        if (!s)
            return sort ? QVariant(-1LL) : QVariant();
        return sort ? QVariant(static_cast<qlonglong>(s->nan)) : QVariant(QString::number(s->nan));
    case InfColumn:
        if (!s)
            return sort ? QVariant(-1LL) : QVariant();
        return sort ? QVariant(static_cast<qlonglong>(s->posInf + s->negInf))
                    : QVariant(QString::number(s->posInf + s->negInf));
    default:
        return {};
    }
}

QVariant ValuesModel::compareData(int column, int role, const CompareRow* row) const
{
    const bool sort = role == SortRole;
    if (!row) {
        if (sort)
            return column == CompareStatusColumn ? QVariant(QString()) : QVariant(-1.0);
        if (role == Qt::DisplayRole && column == CompareStatusColumn)
            return QStringLiteral("not compared");
        if (role == Qt::ForegroundRole)
            return QColor(0x9c, 0xa3, 0xaf);
        return {};
    }
    const bool stats
        = (row->status == CompareStatus::Match || row->status == CompareStatus::Mismatch) && row->stats.numeric;
    if (role == Qt::TextAlignmentRole && column != CompareStatusColumn)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::BackgroundRole && column == CompareStatusColumn) {
        QColor c = CompareColours::forRow(*row, ErrorMetric::ToleranceRatio);
        c.setAlpha(90);
        return c;
    }
    if (role == Qt::ToolTipRole && !row->note.empty())
        return QString::fromStdString(row->note);
    if (role != Qt::DisplayRole && !sort)
        return {};
    switch (column) {
    case MaxAbsErrorColumn:
    case MaxRelErrorColumn:
    case CosineColumn: {
        if (!stats)
            return sort ? QVariant(-1.0) : QVariant();
        const double v = column == MaxAbsErrorColumn ? row->stats.maxAbsError
            : column == MaxRelErrorColumn            ? row->stats.maxRelError
                                                     : row->stats.cosine;
        return sort ? QVariant(v) : QVariant(number(v));
    }
    case MismatchesColumn:
        if (row->status != CompareStatus::Match && row->status != CompareStatus::Mismatch)
            return sort ? QVariant(-1LL) : QVariant();
        return sort ? QVariant(static_cast<qlonglong>(row->stats.mismatches))
                    : QVariant(QStringLiteral("%1 / %2").arg(row->stats.mismatches).arg(row->stats.elements));
    case CompareStatusColumn:
        return CompareColours::statusLabel(row->status);
    default:
        return {};
    }
}

QVariant ValuesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char* names[] = { "Name", "Producer", "Frame", "Iter", "Type", "Shape", "Min", "Max", "Mean", "Std",
        "NaN", "Inf", "Max abs err", "Max rel err", "Cosine", "Mismatches", "Compare" };
    return section >= 0 && section < columnCount() ? QString::fromLatin1(names[section]) : QVariant();
}

} // namespace onnxscope
