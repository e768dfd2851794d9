import Foundation

/// Reads back, from a metrics file written before, the job's last success time: the value of the
/// one `importer_last_success_timestamp_seconds` sample whose `importer_job` label (or `job`, in a
/// file written before that label) is the job's. Anything
/// else in the file (other samples, other jobs, comments) is ignored; an unreadable file, or one
/// without that sample, gives nil.
package enum LastSuccess {
    package static let metricName = "importer_last_success_timestamp_seconds"

    /// The job's last success in the file at `path`, if it holds one.
    package static func read(path: String, job: String) -> Double? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return parse(String(decoding: data, as: UTF8.self), job: job)
    }

    /// The job's last success in exposition `text`, if it holds one.
    package static func parse(_ text: String, job: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(metricName + "{") {
            guard let parsed = sample(line.dropFirst(metricName.count + 1)), (parsed.labels[RunMetrics.jobLabel] ?? parsed.labels["job"]) == job else { continue }
            return parsed.value
        }
        return nil
    }

    /// `name="value",…} 1.5` (the part of a sample line after its `{`): its labels (values
    /// unescaped) and value; nil when the line is malformed.
    static func sample(_ text: Substring) -> (labels: [String: String], value: Double)? {
        var labels: [String: String] = [:]
        var rest = text
        while let first = rest.first, first != "}" {
            if first == "," { rest = rest.dropFirst(); continue }
            guard let equals = rest.firstIndex(of: "="), rest[rest.index(after: equals)...].first == "\"" else { return nil }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces)
            rest = rest[rest.index(equals, offsetBy: 2)...]
            var value = ""
            var escaped = false
            while let character = rest.popFirst() {
                if escaped {
                    value.append(character == "n" ? "\n" : character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    break
                } else {
                    value.append(character)
                }
            }
            labels[name] = value
        }
        guard rest.first == "}" else { return nil }
        let fields = rest.dropFirst().split(separator: " ")
        guard let number = fields.first.flatMap({ Double(String($0)) }) else { return nil }
        return (labels, number)
    }
}
