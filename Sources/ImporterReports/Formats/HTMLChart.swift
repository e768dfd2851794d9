import Foundation

/// An inline SVG chart for the HTML report: bars per category (grouped when there are several bar
/// series) on a left axis, optionally a line series on a right axis, with axis titles, a legend,
/// and a `<title>` on the chart and on every bar and point (tooltips, screen readers).
///
/// Colours come from CSS classes (`series.cssClass`), so the page's stylesheet themes the charts.
struct HTMLChart {
    enum Axis { case left, right }
    enum Kind { case bar, line }

    struct Series {
        var name: String
        var cssClass: String
        var kind: Kind
        var axis: Axis
        var values: [Double?]
        /// True when the values are counts: axis ticks are then whole numbers.
        var integral: Bool
    }

    var id: String
    var title: String
    var summary: String
    var categories: [String]
    var categoryAxisTitle: String
    var leftAxisTitle: String
    var rightAxisTitle: String?
    var series: [Series]
    /// Label each bar with its value (when bars are wide enough).
    var labelBars = true

    static let width = 960.0
    static let plotHeight = 240.0
    static let characterWidth = 6.6
    static let maximumLabelCharacters = 18

    /// Where everything goes: the scales, the margins around the plot, the category band.
    private struct Frame {
        let left: NiceScale
        let right: NiceScale?
        let leftLabels: [String]
        let rightLabels: [String]
        let marginLeft: Double
        let marginRight: Double
        let marginTop = 48.0
        let plotWidth: Double
        let band: Double
        let shownLabels: [String]
        let rotated: Bool
        let labelEvery: Int
        let height: Double
        var plotBottom: Double { marginTop + HTMLChart.plotHeight }

        init(_ chart: HTMLChart) {
            let leftSeries = chart.series.filter { $0.axis == .left }
            let rightSeries = chart.series.filter { $0.axis == .right }
            let left = NiceScale(values: leftSeries.flatMap { $0.values.compactMap { $0 } }, integral: leftSeries.allSatisfy(\.integral))
            let right = rightSeries.isEmpty ? nil : NiceScale(values: rightSeries.flatMap { $0.values.compactMap { $0 } }, integral: rightSeries.allSatisfy(\.integral))
            let leftLabels = left.ticks.map { left.label($0) }
            let rightLabels = right.map { scale in scale.ticks.map { scale.label($0) } } ?? []
            (self.left, self.right, self.leftLabels, self.rightLabels) = (left, right, leftLabels, rightLabels)
            marginLeft = 34 + Double(leftLabels.map(\.count).max() ?? 1) * HTMLChart.characterWidth + 10
            marginRight = right == nil ? 24.0 : 44 + Double(rightLabels.map(\.count).max() ?? 1) * HTMLChart.characterWidth + 10
            let plotWidth = HTMLChart.width - marginLeft - marginRight
            self.plotWidth = plotWidth
            let shownLabels = chart.categories.map { HTMLChart.truncated($0, to: HTMLChart.maximumLabelCharacters) }
            self.shownLabels = shownLabels
            let longestLabel = Double(shownLabels.map(\.count).max() ?? 1) * HTMLChart.characterWidth
            let band = plotWidth / Double(max(chart.categories.count, 1))
            self.band = band
            let rotated = longestLabel > band - 6
            self.rotated = rotated
            labelEvery = rotated ? max(1, Int((15 / band).rounded(.up))) : 1
            let labelDepth = rotated ? longestLabel * 0.71 + 14 : 20
            height = (marginTop + HTMLChart.plotHeight + labelDepth + 36).rounded(.up)
        }

        func y(_ value: Double, _ scale: NiceScale) -> Double {
            plotBottom - (value - scale.lower) / (scale.upper - scale.lower) * HTMLChart.plotHeight
        }

        func scale(of item: Series) -> NiceScale { item.axis == .left ? left : (right ?? left) }
    }

    func svg() -> String {
        let frame = Frame(self)
        var svg = "<svg class=\"chart\" id=\"\(id)\" viewBox=\"0 0 \(Self.n(Self.width)) \(Self.n(frame.height))\" role=\"img\" aria-labelledby=\"\(id)-title \(id)-desc\">"
        svg += "<title id=\"\(id)-title\">\(HTMLEscaping.escape(title))</title>"
        svg += "<desc id=\"\(id)-desc\">\(HTMLEscaping.escape(summary))</desc>"
        svg += legend(frame) + axes(frame) + bars(frame) + lines(frame)
        svg += "</svg>"
        return svg
    }

    private func legend(_ frame: Frame) -> String {
        var svg = ""
        var legendX = frame.marginLeft
        for item in series {
            svg += "<g class=\"legend \(item.cssClass)\">"
            switch item.kind {
            case .bar: svg += "<rect x=\"\(Self.n(legendX))\" y=\"14\" width=\"12\" height=\"12\" rx=\"2\"></rect>"
            case .line:
                svg += "<line x1=\"\(Self.n(legendX - 2))\" y1=\"20\" x2=\"\(Self.n(legendX + 14))\" y2=\"20\"></line>"
                svg += "<circle cx=\"\(Self.n(legendX + 6))\" cy=\"20\" r=\"3.5\"></circle>"
            }
            let label = item.name + (frame.right != nil ? (item.axis == .left ? " (left axis)" : " (right axis)") : "")
            svg += "<text x=\"\(Self.n(legendX + 18))\" y=\"24\">\(HTMLEscaping.escape(label))</text></g>"
            legendX += 18 + Double(label.count) * Self.characterWidth + 22
        }
        return svg
    }

    /// The grid, both value axes, the baseline and the category labels.
    private func axes(_ frame: Frame) -> String {
        let width = Self.width, marginLeft = frame.marginLeft, marginRight = frame.marginRight, plotBottom = frame.plotBottom
        var svg = "<g class=\"axis\">"
        for (tick, label) in zip(frame.left.ticks, frame.leftLabels) {
            let ty = frame.y(tick, frame.left)
            svg += "<line class=\"grid\(tick == 0 ? " zero" : "")\" x1=\"\(Self.n(marginLeft))\" y1=\"\(Self.n(ty))\" x2=\"\(Self.n(width - marginRight))\" y2=\"\(Self.n(ty))\"></line>"
            svg += "<text x=\"\(Self.n(marginLeft - 8))\" y=\"\(Self.n(ty + 4))\" text-anchor=\"end\">\(HTMLEscaping.escape(label))</text>"
        }
        svg += "<text class=\"axis-title\" transform=\"translate(14 \(Self.n(frame.marginTop + Self.plotHeight / 2))) rotate(-90)\" text-anchor=\"middle\">\(HTMLEscaping.escape(leftAxisTitle))</text>"
        if let right = frame.right, let rightAxisTitle, let first = series.first(where: { $0.axis == .right }) {
            // The right axis takes the colour of its (first) series, so it reads as that series' scale.
            svg += "<g class=\"right-axis \(first.cssClass)\">"
            for (tick, label) in zip(right.ticks, frame.rightLabels) {
                svg += "<text x=\"\(Self.n(width - marginRight + 8))\" y=\"\(Self.n(frame.y(tick, right) + 4))\">\(HTMLEscaping.escape(label))</text>"
            }
            svg += "<text class=\"axis-title\" transform=\"translate(\(Self.n(width - 28)) \(Self.n(frame.marginTop + Self.plotHeight / 2))) rotate(90)\" text-anchor=\"middle\">\(HTMLEscaping.escape(rightAxisTitle))</text></g>"
        }
        svg += "<line class=\"baseline\" x1=\"\(Self.n(marginLeft))\" y1=\"\(Self.n(plotBottom))\" x2=\"\(Self.n(width - marginRight))\" y2=\"\(Self.n(plotBottom))\"></line>"
        for (index, label) in frame.shownLabels.enumerated() where index % frame.labelEvery == 0 {
            let cx = marginLeft + frame.band * (Double(index) + 0.5)
            if frame.rotated {
                svg += "<text x=\"\(Self.n(cx))\" y=\"\(Self.n(plotBottom + 14))\" text-anchor=\"end\" transform=\"rotate(-45 \(Self.n(cx)) \(Self.n(plotBottom + 14)))\">\(HTMLEscaping.escape(label))</text>"
            } else {
                svg += "<text x=\"\(Self.n(cx))\" y=\"\(Self.n(plotBottom + 18))\" text-anchor=\"middle\">\(HTMLEscaping.escape(label))</text>"
            }
        }
        svg += "<text class=\"axis-title\" x=\"\(Self.n(marginLeft + frame.plotWidth / 2))\" y=\"\(Self.n(frame.height - 10))\" text-anchor=\"middle\">\(HTMLEscaping.escape(categoryAxisTitle))</text>"
        return svg + "</g>"
    }

    private func bars(_ frame: Frame) -> String {
        let bars = series.filter { $0.kind == .bar }
        let band = frame.band
        let barWidth = min(band * 0.78 / Double(max(bars.count, 1)), 64)
        let groupWidth = barWidth * Double(bars.count)
        let showBarLabels = labelBars && barWidth >= 22
        var svg = ""
        for (seriesIndex, item) in bars.enumerated() {
            let scale = frame.scale(of: item)
            svg += "<g class=\"bars \(item.cssClass)\">"
            for (index, value) in item.values.enumerated() {
                guard let value, index < categories.count else { continue }
                let x = frame.marginLeft + band * Double(index) + (band - groupWidth) / 2 + barWidth * Double(seriesIndex)
                let zero = frame.y(max(scale.lower, min(0, scale.upper)), scale)
                let top = frame.y(value, scale)
                var barTop = min(zero, top)
                var barHeight = abs(zero - top)
                if value != 0 && barHeight < 1 { barHeight = 1; if value > 0 { barTop = zero - 1 } }
                let tooltip = "\(categories[index]): \(Self.exact(value)) \(item.name)"
                let inset = barWidth >= 6 ? 1.0 : 0.0
                svg += "<rect x=\"\(Self.n(x + inset))\" y=\"\(Self.n(barTop))\" width=\"\(Self.n(barWidth - 2 * inset))\" height=\"\(Self.n(barHeight))\" rx=\"2\"><title>\(HTMLEscaping.escape(tooltip))</title></rect>"
                if showBarLabels {
                    svg += "<text class=\"value\" x=\"\(Self.n(x + barWidth / 2))\" y=\"\(Self.n(value >= 0 ? barTop - 5 : barTop + barHeight + 13))\" text-anchor=\"middle\">\(HTMLEscaping.escape(Self.exact(value)))</text>"
                }
            }
            svg += "</g>"
        }
        return svg
    }

    private func lines(_ frame: Frame) -> String {
        var svg = ""
        for item in series where item.kind == .line {
            let scale = frame.scale(of: item)
            var path = ""
            var drawing = false
            var points = ""
            for (index, value) in item.values.enumerated() {
                guard let value, index < categories.count else { drawing = false; continue }
                let cx = frame.marginLeft + frame.band * (Double(index) + 0.5)
                let cy = frame.y(value, scale)
                path += "\(drawing ? "L" : "M")\(Self.n(cx)) \(Self.n(cy))"
                drawing = true
                let tooltip = "\(categories[index]): \(Self.exact(value)) \(item.name)"
                points += "<circle cx=\"\(Self.n(cx))\" cy=\"\(Self.n(cy))\" r=\"\(categories.count > 60 ? "2" : "4")\"><title>\(HTMLEscaping.escape(tooltip))</title></circle>"
            }
            svg += "<g class=\"line \(item.cssClass)\"><path d=\"\(path)\"></path>\(points)</g>"
        }
        return svg
    }

    /// A coordinate with at most one decimal.
    static func n(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    /// A value as a chart shows it: whole numbers with thousands separators (`100,000`), others
    /// to 12 significant digits (a sum's `766.6999999999999` is `766.7`).
    static func exact(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return HTMLEscaping.grouped(Int(value)) }
        return rounded(value)
    }

    /// `value` to 12 significant digits, without trailing zeros.
    static func rounded(_ value: Double) -> String {
        let shown = Double(String(format: "%.12g", value)) ?? value
        if shown == shown.rounded(), abs(shown) < 1e15 { return HTMLEscaping.grouped(Int(shown)) }
        return shown.formattedForReport
    }

    static func truncated(_ text: String, to length: Int) -> String {
        text.count <= length ? text : String(text.prefix(length - 1)) + "…"
    }
}

/// A linear scale over `[lower, upper]` (including 0) with about five round ticks.
struct NiceScale {
    var lower: Double
    var upper: Double
    var step: Double
    var ticks: [Double]

    init(values: [Double], integral: Bool) {
        let finite = values.filter(\.isFinite)
        var low = min(0, finite.min() ?? 0)
        var high = max(0, finite.max() ?? 0)
        if low == high { high = low + 1 }
        var step = Self.niceStep((high - low) / 5)
        if integral { step = max(1, step.rounded(.up)) }
        low = (low / step).rounded(.down) * step
        high = (high / step).rounded(.up) * step
        if low == high { high = low + step }
        lower = low
        upper = high
        self.step = step
        var ticks: [Double] = []
        var index = 0.0
        while lower + index * step <= upper + step * 1e-9 && ticks.count < 50 {
            let tick = lower + index * step
            ticks.append(abs(tick) < step * 1e-9 ? 0 : tick)
            index += 1
        }
        self.ticks = ticks
    }

    static func niceStep(_ raw: Double) -> Double {
        guard raw > 0, raw.isFinite else { return 1 }
        let magnitude = pow(10, (log10(raw)).rounded(.down))
        let fraction = raw / magnitude
        let nice: Double = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 2.5 ? 2.5 : fraction <= 5 ? 5 : 10
        return nice * magnitude
    }

    /// A tick label: as many decimals as the step needs; thousands as k, millions as M, billions as G.
    func label(_ value: Double) -> String {
        if value == 0 { return "0" }
        let largest = max(abs(lower), abs(upper))
        let (divisor, suffix): (Double, String) = largest >= 1e10 ? (1e9, "G") : largest >= 1e7 ? (1e6, "M") : largest >= 1e4 ? (1e3, "k") : (1, "")
        let scaledStep = step / divisor
        var decimals = 0
        while decimals < 9 {
            let shifted = scaledStep * pow(10, Double(decimals))
            if abs(shifted - shifted.rounded()) < 1e-6 * max(1, shifted) { break }
            decimals += 1
        }
        return String(format: "%.\(decimals)f", value / divisor) + suffix
    }
}
