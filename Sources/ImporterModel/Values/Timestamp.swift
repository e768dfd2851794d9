import Foundation

/// UTC timestamps as ISO-8601 text with milliseconds (`2026-11-22T17:21:19.123Z`).
public enum Timestamp {
    public static func now() -> String { format(Date()) }

    public static func format(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        let whole = Int(seconds.rounded(.down))
        let millis = Int(((seconds - Double(whole)) * 1000).rounded(.down))
        let days = whole >= 0 ? whole / 86400 : (whole - 86399) / 86400
        let secondOfDay = whole - days * 86400
        let (y, m, d) = DateTimeFormat.civilFromDays(days)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay % 3600 / 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(millis, 3))Z"
    }
}
