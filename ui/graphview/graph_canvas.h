// SPDX-License-Identifier: MIT
#pragma once

#include <QGraphicsView>

namespace onnxscope {

/// The zoomable, pannable view of a GraphScene: wheel and Ctrl± zoom about the cursor, drag on empty space pans,
/// arrow keys ask the owner to move the selection along edges.
class GraphCanvas : public QGraphicsView {
    Q_OBJECT
public:
    explicit GraphCanvas(QWidget* parent = nullptr);

    double zoom() const;
    void setZoom(double zoom);
    void zoomBy(double factor);
    void fitAll();
    /// Pixels at the viewport's bottom-right corner covered by an overlay (the overview). Along an axis on which the
    /// drawing is larger than the viewport, the view may scroll that much past the drawing's edge, so what lies under
    /// the overlay can be brought out from under it. An empty size reserves nothing.
    void setCornerReserve(const QSize& pixels);
    /// Refits the scrollable area to the scene's rectangle, the zoom and the corner reserve (after a new layout).
    void updateScrollArea();
    static constexpr double kMinZoom = 0.02;
    static constexpr double kMaxZoom = 4.0;

signals:
    void navigateRequested(int key); // Qt::Key_Up/Down/Left/Right
    void activateRequested(); // Enter: open the selected node's body or group
    void parentRequested(); // Backspace: back to the enclosing graph
    void painted();
    void viewportMoved();

protected:
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    QSize m_cornerReserve;
    QRectF m_scrollArea; // what setSceneRect() was last given; null while the view follows the scene
};

/// A small picture of the whole graph with the visible area framed; click or drag in it to move the view.
class GraphOverview : public QWidget {
    Q_OBJECT
public:
    explicit GraphOverview(GraphCanvas* canvas, QWidget* parent = nullptr);
    /// Re-renders the scene picture (after a new layout, a state change or a resized viewport). The overview takes
    /// the scene's proportions within at most 220 x 180 pixels, 30 % of the viewport's width and 35 % of its height, so
    /// a tall, narrow graph gets a tall, narrow overview rather than a wide box of empty paper over the drawing.
    void refresh();
    /// The size refresh() gives the overview for the current scene and viewport.
    QSize preferredSize() const;

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    QRectF pictureRect() const;
    void moveTo(const QPointF& widgetPos);

    GraphCanvas* m_canvas;
    QPixmap m_picture;
    QRectF m_sceneRect;
};

} // namespace onnxscope
