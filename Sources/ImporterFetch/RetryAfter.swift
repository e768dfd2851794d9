import Foundation

/// The `Retry-After` header of a 429 or 503 answer (RFC 9110 §10.2.3): a number of seconds, or an
/// HTTP date.
public enum RetryAfter {
    /// How long the server asks to wait, from `now`; nil when the header is absent or malformed.
    /// A date in the past is no wait at all.
    public static func delay(_ header: String?, now: Date) -> Double? {
        guard let header = header?.trimmingCharacters(in: .whitespaces), !header.isEmpty else { return nil }
        if let seconds = Int(header) { return seconds >= 0 ? Double(seconds) : nil }
        guard let date = httpDate(header) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), also the obsolete RFC 850 and asctime forms.
    public static func httpDate(_ text: String) -> Date? {
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
