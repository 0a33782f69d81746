// SPDX-License-Identifier: MIT
#include "ui/graphview/graph_canvas.h"

#include <QKeyEvent>
#include <QPainter>
#include <QScrollBar>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace onnxscope {

GraphCanvas::GraphCanvas(QWidget* parent)
    : QGraphicsView(parent)
{
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setOptimizationFlags(QGraphicsView::DontAdjustForAntialiasing);
    setFrameShape(QFrame::NoFrame);
    setFocusPolicy(Qt::StrongFocus);
}

double GraphCanvas::zoom() const
{
    return transform().m11();
}

void GraphCanvas::setZoom(double zoom)
{
    zoom = std::clamp(zoom, kMinZoom, kMaxZoom);
    const double factor = zoom / this->zoom();
    scale(factor, factor);
    updateScrollArea();
    emit viewportMoved();
}

void GraphCanvas::setCornerReserve(const QSize& pixels)
{
    m_cornerReserve = pixels;
    updateScrollArea();
}

void GraphCanvas::updateScrollArea()
{
    QRectF area;
    if (scene() && !scene()->sceneRect().isEmpty() && !m_cornerReserve.isEmpty()) {
        const QRectF drawing = scene()->sceneRect();
        const double z = zoom();
        const QSize vp = viewport()->size();
        const double right = drawing.width() * z > vp.width() ? m_cornerReserve.width() / z : 0;
        const double bottom = drawing.height() * z > vp.height() ? m_cornerReserve.height() / z : 0;
        if (right > 0 || bottom > 0)
            area = drawing.adjusted(0, 0, right, bottom);
    }
    if (area == m_scrollArea)
        return;
    m_scrollArea = area;
    setSceneRect(area); // a null rectangle: follow the scene's own
}

void GraphCanvas::zoomBy(double factor)
{
    setZoom(zoom() * factor);
}

void GraphCanvas::fitAll()
{
    if (!scene())
        return;
    const QRectF rect = scene()->sceneRect();
    if (rect.isEmpty())
        return;
    fitInView(rect, Qt::KeepAspectRatio);
    // Small graphs are not blown up past 1:1, and huge ones stay at a zoom where boxes are visible.
    if (zoom() > 1.0)
        setZoom(1.0);
    if (zoom() < kMinZoom)
        setZoom(kMinZoom);
    centerOn(rect.center());
    emit viewportMoved();
}

void GraphCanvas::wheelEvent(QWheelEvent* event)
{
    if (event->modifiers() & Qt::ShiftModifier) {
        QGraphicsView::wheelEvent(event);
        return;
    }
    const double steps = event->angleDelta().y() != 0 ? event->angleDelta().y() : event->pixelDelta().y();
    if (steps == 0)
        return;
    const QTransform::TransformationType before = transform().type();
    Q_UNUSED(before);
    zoomBy(std::pow(1.0015, steps));
    event->accept();
}

void GraphCanvas::keyPressEvent(QKeyEvent* event)
{
    switch (event->key()) {
    case Qt::Key_Up:
    case Qt::Key_Down:
    case Qt::Key_Left:
    case Qt::Key_Right:
        if (event->modifiers() == Qt::NoModifier) {
            emit navigateRequested(event->key());
            return;
        }
        break;
    case Qt::Key_Return:
    case Qt::Key_Enter:
        emit activateRequested();
        return;
    case Qt::Key_Backspace:
        emit parentRequested();
        return;
    case Qt::Key_Escape:
        if (scene())
            scene()->clearSelection();
        return;
    default:
        break;
    }
    QGraphicsView::keyPressEvent(event);
}

void GraphCanvas::paintEvent(QPaintEvent* event)
{
    QGraphicsView::paintEvent(event);
    emit painted();
}

void GraphCanvas::scrollContentsBy(int dx, int dy)
{
    QGraphicsView::scrollContentsBy(dx, dy);
    emit viewportMoved();
}

void GraphCanvas::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    emit viewportMoved();
}

GraphOverview::GraphOverview(GraphCanvas* canvas, QWidget* parent)
    : QWidget(parent)
    , m_canvas(canvas)
{
    setFixedSize(preferredSize());
    setCursor(Qt::PointingHandCursor);
    setToolTip(QStringLiteral("Overview: click or drag to move the view"));
    connect(canvas, &GraphCanvas::viewportMoved, this, qOverload<>(&QWidget::update));
}

QSize GraphOverview::preferredSize() const
{
    constexpr int kMargin = 8; // white border around the picture
    constexpr int kMinSide = 40; // still a target for the mouse
    const QSize viewport = m_canvas->viewport()->size();
    const QSizeF bound(
        std::clamp(viewport.width() * 0.30, 80.0, 220.0), std::clamp(viewport.height() * 0.35, 60.0, 180.0));
    const QGraphicsScene* scene = m_canvas->scene();
    if (!scene || scene->sceneRect().isEmpty())
        return bound.toSize();
    const QSizeF picture = scene->sceneRect().size().scaled(bound - QSizeF(kMargin, kMargin), Qt::KeepAspectRatio);
    return QSize(std::max(kMinSide, static_cast<int>(std::ceil(picture.width())) + kMargin),
        std::max(kMinSide, static_cast<int>(std::ceil(picture.height())) + kMargin));
}

void GraphOverview::refresh()
{
    m_picture = QPixmap();
    setFixedSize(preferredSize());
    QGraphicsScene* scene = m_canvas->scene();
    if (scene && !scene->sceneRect().isEmpty()) {
        m_sceneRect = scene->sceneRect();
        const QSizeF target = m_sceneRect.size().scaled(QSizeF(size()) - QSizeF(8, 8), Qt::KeepAspectRatio);
        const qreal dpr = devicePixelRatioF();
        QPixmap pixmap((target * dpr).toSize().expandedTo(QSize(1, 1)));
        pixmap.setDevicePixelRatio(dpr);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        painter.setRenderHint(QPainter::Antialiasing);
        scene->render(&painter, QRectF(QPointF(0, 0), target), m_sceneRect);
        m_picture = pixmap;
    }
    update();
}

QRectF GraphOverview::pictureRect() const
{
    if (m_picture.isNull())
        return {};
    const QSizeF s = m_picture.deviceIndependentSize();
    return QRectF(QPointF((width() - s.width()) / 2, (height() - s.height()) / 2), s);
}

void GraphOverview::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(QPen(QColor(0x9a, 0xa3, 0xaf), 1));
    painter.setBrush(QColor(255, 255, 255));
    painter.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 4, 4);
    const QRectF pic = pictureRect();
    if (pic.isEmpty())
        return;
    painter.drawPixmap(pic.topLeft(), m_picture);
    const QRectF visible = m_canvas->mapToScene(m_canvas->viewport()->rect()).boundingRect();
    const double sx = pic.width() / m_sceneRect.width();
    const double sy = pic.height() / m_sceneRect.height();
    QRectF frame(pic.left() + (visible.left() - m_sceneRect.left()) * sx,
        pic.top() + (visible.top() - m_sceneRect.top()) * sy, visible.width() * sx, visible.height() * sy);
    frame = frame.intersected(QRectF(rect()).adjusted(1, 1, -1, -1));
    painter.setPen(QPen(QColor(0x1e, 0x88, 0xe5), 1.5));
    painter.setBrush(QColor(0x1e, 0x88, 0xe5, 30));
    painter.drawRect(frame);
}

void GraphOverview::moveTo(const QPointF& widgetPos)
{
    const QRectF pic = pictureRect();
    if (pic.isEmpty())
        return;
    const double x = m_sceneRect.left() + (widgetPos.x() - pic.left()) / pic.width() * m_sceneRect.width();
    const double y = m_sceneRect.top() + (widgetPos.y() - pic.top()) / pic.height() * m_sceneRect.height();
    m_canvas->centerOn(QPointF(x, y));
}

void GraphOverview::mousePressEvent(QMouseEvent* event)
{
    moveTo(event->position());
}

void GraphOverview::mouseMoveEvent(QMouseEvent* event)
{
    if (event->buttons() & Qt::LeftButton)
        moveTo(event->position());
}

} // namespace onnxscope
