import ImporterTestSupport
import ImporterMetrics
import Testing

/// Reading back the job's last success from the previous metrics file: its own sample only.
@Suite struct LastSuccessTests {
    @Test func readsTheSampleOfTheJob() {
        let text = """
            # HELP importer_last_success_timestamp_seconds When the job last succeeded.
            # TYPE importer_last_success_timestamp_seconds gauge
            importer_last_success_timestamp_seconds{job="hourly"} 1700000000.0
            importer_last_success_timestamp_seconds{job="nightly"} 1764201600.25
            importer_last_run_timestamp_seconds{job="nightly"} 1764300000.0
            """
        #expect(LastSuccess.parse(text, job: "nightly") == 1764201600.25)
        #expect(LastSuccess.parse(text, job: "hourly") == 1700000000)
        #expect(LastSuccess.parse(text, job: "weekly") == nil)
    }

    @Test func unescapesLabelValuesAndSkipsMalformedLines() {
        let text = """
            importer_last_success_timestamp_seconds{job="nightly} 5
            importer_last_success_timestamp_seconds{job="a\\"b",kind="x"} 7.5
            importer_last_success_timestamp_seconds{job="c"} not-a-number
            """
        #expect(LastSuccess.parse(text, job: #"a"b"#) == 7.5)
        #expect(LastSuccess.parse(text, job: "nightly") == nil)
        #expect(LastSuccess.parse(text, job: "c") == nil)
    }

    @Test func readsWhatARunWrote() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("importer.prom")
        #expect(LastSuccess.read(path: path, job: "nightly") == nil)
        let job = #"night "ly" \ job"#
        try Textfile.write(RunMetrics(job: job, finishedAt: 1764201600.5, exitCode: 0, succeeded: true, previousSuccess: nil, durationSeconds: 1).families, to: path)
        #expect(LastSuccess.read(path: path, job: job) == 1764201600.5)
        try Textfile.write(RunMetrics(job: job, finishedAt: 1764300000, exitCode: 65, succeeded: false,
                                      previousSuccess: LastSuccess.read(path: path, job: job), durationSeconds: 1).families, to: path)
        #expect(LastSuccess.read(path: path, job: job) == 1764201600.5)
    }
}
