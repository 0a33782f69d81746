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
};

/// A small picture of the whole graph with the visible area framed; click or drag in it to move the view.
class GraphOverview : public QWidget {
    Q_OBJECT
public:
    explicit GraphOverview(GraphCanvas* canvas, QWidget* parent = nullptr);
    /// Re-renders the scene picture (after a new layout or a state change).
    void refresh();

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
