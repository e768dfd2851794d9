import Prometheus

/// Renders metric families in Prometheus' text exposition format with swift-prometheus
/// (`PrometheusCollectorRegistry.emit(into:)`): HELP and TYPE lines, escaped label values.
///
/// Each family is rendered through a registry of its own, so families come out in the order given
/// (a single registry emits them in hash order); a family without samples is left out.
package enum TextExposition {
    package static func render(_ families: [MetricFamily]) -> [UInt8] {
        var buffer: [UInt8] = []
        for family in families where !family.samples.isEmpty {
            let registry = PrometheusCollectorRegistry()
            let descriptor = MetricNameDescriptor(metricName: family.name, unitName: "", helpText: family.help)
            for sample in family.samples {
                registry.makeGauge(descriptor: descriptor, labels: sample.labels.map { ($0.name, $0.value) }).set(to: sample.value)
            }
            registry.emit(into: &buffer)
        }
        return buffer
    }

    /// The rendering as text.
    package static func text(_ families: [MetricFamily]) -> String {
        String(decoding: render(families), as: UTF8.self)
    }
}
