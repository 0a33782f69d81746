// SPDX-License-Identifier: MIT
#include "ui/tensorinspector/tensor_view.h"

#include "ui/common/tensor_format.h"
#include "ui/tensorinspector/tensor_table_model.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

#include <cmath>

namespace onnxscope {

TensorView::TensorView(QWidget* parent)
    : QWidget(parent)
    , m_header(new QLabel(this))
    , m_sliceLayout(new QHBoxLayout)
    , m_table(new QTableView(this))
    , m_model(new TensorTableModel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_header->setTextFormat(Qt::RichText);
    m_header->setWordWrap(true);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_header->setText(QStringLiteral("<span style='color:#6b7280'>Double-click an initializer or a tensor attribute in the "
                                     "Inspector to view it here.</span>"));
    layout->addWidget(m_header);
    layout->addLayout(m_sliceLayout);
    m_table->setModel(m_model);
    m_table->horizontalHeader()->setDefaultSectionSize(kMinElementColumnWidth);
    m_table->verticalHeader()->setDefaultSectionSize(20);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    layout->addWidget(m_table, 1);
}

QString TensorView::summary() const { return m_header->text(); }

void TensorView::setTensor(const QString& title, const Tensor& tensor)
{
    m_model->setTensor(tensor);
    m_table->horizontalHeader()->setDefaultSectionSize(elementColumnWidth(tensor, m_table->fontMetrics()));
    m_sliceBoxes.clear(); // the widgets are deleted with the layout items below
    while (QLayoutItem* item = m_sliceLayout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    QString stats;
    if (tensor.defined() && isNumeric(tensor.dtype()) && tensor.size() > 0) {
        double lo = INFINITY, hi = -INFINITY, sum = 0;
        int64_t finite = 0, nonFinite = 0;
        // Statistics read every element; cap the work for huge tensors and say so.
        const int64_t n = std::min<int64_t>(tensor.size(), 50'000'000);
        for (int64_t i = 0; i < n; ++i) {
            const double v = tensor.toDouble(i);
            if (!std::isfinite(v)) {
                ++nonFinite;
                continue;
            }
            lo = std::min(lo, v);
            hi = std::max(hi, v);
            sum += v;
            ++finite;
        }
        stats = QStringLiteral("min %1 · max %2 · mean %3").arg(lo, 0, 'g', 6).arg(hi, 0, 'g', 6).arg(finite ? sum / static_cast<double>(finite) : 0.0, 0, 'g', 6);
        if (nonFinite)
            stats += QStringLiteral(" · <span style='color:#c62828'>%1 NaN/Inf</span>").arg(nonFinite);
        if (n < tensor.size())
            stats += QStringLiteral(" (first %1 elements)").arg(n);
    }
    const auto dtype = dataTypeName(tensor.dtype());
    m_header->setText(QStringLiteral("<b>%1</b><br>%2 \u27e8%3\u27e9 \u00b7 %4 \u00b7 %5<br>%6")
                          .arg(title.toHtmlEscaped(), QString::fromUtf8(dtype.data(), static_cast<qsizetype>(dtype.size())),
                              formatShape(tensor.shape()), elementCountText(tensor.size()), formatBytes(tensor.byteSize()),
                              stats));
    if (tensor.rank() > 2) {
        m_sliceLayout->addWidget(new QLabel(QStringLiteral("Slice:"), this));
        for (int64_t axis = 0; axis + 2 < tensor.rank(); ++axis) {
            auto* box = new QSpinBox(this);
            box->setRange(0, static_cast<int>(std::max<int64_t>(tensor.dim(axis) - 1, 0)));
            box->setPrefix(QStringLiteral("[%1] ").arg(axis));
            connect(box, &QSpinBox::valueChanged, this, &TensorView::sliceChanged);
            m_sliceLayout->addWidget(box);
            m_sliceBoxes.push_back(box);
        }
        m_sliceLayout->addWidget(new QLabel(QStringLiteral("rows: axis %1, columns: axis %2").arg(tensor.rank() - 2).arg(tensor.rank() - 1), this));
        m_sliceLayout->addStretch(1);
    }
}

void TensorView::sliceChanged()
{
    std::vector<int64_t> slice;
    for (QSpinBox* box : m_sliceBoxes)
        slice.push_back(box->value());
    m_model->setSlice(std::move(slice));
}

} // namespace onnxscope
