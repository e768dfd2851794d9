import ImporterTestSupport
import ImporterMetrics
import Testing

/// The text exposition of metric families, through swift-prometheus: HELP and TYPE lines, gauges,
/// label values escaped, families in the order given, empty families left out.
@Suite struct TextExpositionTests {
    @Test func rendersGaugesInTheOrderGiven() {
        let families = [
            MetricFamily(name: "importer_b_seconds", help: "B.", samples: [.init([.init("job", "nightly")], 1.5)]),
            MetricFamily(name: "importer_empty", help: "Never rendered."),
            MetricFamily(name: "importer_a", help: "A.", samples: [.init([], 3)]),
        ]
        #expect(TextExposition.text(families) == """
            # HELP importer_b_seconds B.
            # TYPE importer_b_seconds gauge
            importer_b_seconds{job="nightly"} 1.5
            # HELP importer_a A.
            # TYPE importer_a gauge
            importer_a 3.0

            """)
    }

    @Test func escapesLabelValues() {
        let family = MetricFamily(name: "importer_x", help: "X.", samples: [.init([.init("source", "a\"b\\c\nd")], 1)])
        #expect(TextExposition.text([family]).contains(#"importer_x{source="a\"b\\c\nd"} 1.0"#))
    }

    @Test func keepsEverySampleOfAFamilyUnderOneTypeLine() {
        var family = MetricFamily(name: "importer_records", help: "R.")
        for outcome in ["inserted", "updated", "deleted"] { family.add([.init("job", "j"), .init("outcome", outcome)], 2) }
        let lines = TextExposition.text([family]).split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("# TYPE") }.count == 1)
        #expect(Set(lines.filter { !$0.hasPrefix("#") }) == [
            #"importer_records{job="j",outcome="inserted"} 2.0"#, #"importer_records{job="j",outcome="updated"} 2.0"#,
            #"importer_records{job="j",outcome="deleted"} 2.0"#,
        ])
    }
}
