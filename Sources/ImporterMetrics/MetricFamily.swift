/// One metric of the text exposition: a name, its help, and its samples (label sets with their
/// values). Every family importer writes is a gauge: a textfile holds the state of the last run or
/// of the store, not a count that grows across runs.
///
/// Invariants: the name follows Prometheus' conventions (`importer_` prefix, the unit last, no
/// `_total`); every sample of a family has the same label names in the same order, `job` first
/// when there is one.
package struct MetricFamily: Sendable, Equatable {
    /// A label of a sample: its name (a Prometheus label name) and its value (any text).
    package struct Label: Sendable, Equatable {
        package var name: String
        package var value: String

        package init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// One time series of the family.
    package struct Sample: Sendable, Equatable {
        package var labels: [Label]
        package var value: Double

        package init(_ labels: [Label], _ value: Double) {
            self.labels = labels
            self.value = value
        }
    }

    package var name: String
    package var help: String
    package var samples: [Sample]

    package init(name: String, help: String, samples: [Sample] = []) {
        self.name = name
        self.help = help
        self.samples = samples
    }

    /// The family with one more sample, labelled `labels`.
    package mutating func add(_ labels: [Label], _ value: Double) {
        samples.append(Sample(labels, value))
    }
}
