import Foundation

/// The comment beside a suggested field: its sample value (with the time an epoch number means),
/// and how often the samples lacked it.
enum SampleComment {
    static let maximumLength = 60

    static func text(for profile: FieldProfile, inferred: InferredType, repeated: Bool, records: Int) -> String {
        guard let sample = profile.sample?.text else { return "no value in the samples (the type is a guess)" }
        var text = repeated ? "e.g. " : ""
        text += quoted(sample)
        if let format = inferred.format, let number = Int64(sample),
           let seconds = ["epoch-s": 1, "epoch-ms": 1000, "epoch-us": 1_000_000][format] {
            text += " = " + utc(milliseconds: number * 1000 / Int64(seconds))
        }
        let missing = records - (inferred.type == .text ? profile.valued : profile.filled)
        if missing > 0 { text += " (none in \(missing) of \(records) records)" }
        if repeated { text += " (up to \(profile.maximumValues) values in one record)" }
        return text
    }

    /// The value on one line, cut when long, strings that look like something else in quotes.
    static func quoted(_ value: String, limit: Int? = maximumLength) -> String {
        var line = value.replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n")
            .trimmingCharacters(in: .whitespaces)
        if let limit, line.count > limit { line = String(line.prefix(limit)) + "…" }
        return line
    }

    /// `2020-03-06 17:42:58.620 UTC`.
    static func utc(milliseconds: Int64) -> String {
        let (days, rest) = milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
        let day = rest < 0 ? days - 1 : days
        let inDay = rest < 0 ? rest + 86_400_000 : rest
        // Howard Hinnant's civil_from_days.
        let z = day + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let ms = inDay % 1000
        let msText = ms == 0 ? "" : "." + String(String(ms + 1000).dropFirst())
        return "\(y)-\(two(m))-\(two(d)) \(two(inDay / 3_600_000)):\(two(inDay / 60000 % 60)):\(two(inDay / 1000 % 60))\(msText) UTC"
    }
}
