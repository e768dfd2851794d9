import ImporterTestSupport
import Foundation
@testable import ImporterFetch
import Testing

@Suite struct RetryTests {
    @Test func retryAfterReadsSecondsAndHTTPDates() {
        let now = Date(timeIntervalSince1970: 784_111_777) // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryAfter.delay("120", now: now) == 120)
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:50:07 GMT", now: now) == 30)
        #expect(RetryAfter.delay("Sunday, 06-Nov-94 08:50:37 GMT", now: now) == 60)
        #expect(RetryAfter.delay("Sun Nov  6 08:49:47 1994", now: now) == 10)
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:00:00 GMT", now: now) == 0, "a date in the past is no wait")
        #expect(RetryAfter.delay("soon", now: now) == nil)
        #expect(RetryAfter.delay("-5", now: now) == nil)
        #expect(RetryAfter.delay(nil, now: now) == nil)
    }

    @Test func backoffGrowsIsCappedHonoursRetryAfterAndStopsAtTheDeadline() {
        let schedule = RetrySchedule(deadline: 60, base: 0.5, cap: 8)
        let most: (ClosedRange<Double>) -> Double = { $0.upperBound }
        #expect(schedule.delay(afterAttempts: 1, elapsed: 0, retryAfter: nil, random: most) == 0.5)
        #expect(schedule.delay(afterAttempts: 3, elapsed: 0, retryAfter: nil, random: most) == 2)
        #expect(schedule.delay(afterAttempts: 10, elapsed: 0, retryAfter: nil, random: most) == 8, "capped")
        #expect(schedule.delay(afterAttempts: 1, elapsed: 0, retryAfter: 20, random: most) == 20, "Retry-After is a floor")
        #expect(schedule.delay(afterAttempts: 1, elapsed: 50, retryAfter: 20, random: most) == nil, "past the deadline")
        #expect(schedule.delay(afterAttempts: 2, elapsed: 59.5, retryAfter: nil, random: most) == nil)
        let least: (ClosedRange<Double>) -> Double = { $0.lowerBound }
        #expect(schedule.delay(afterAttempts: 4, elapsed: 0, retryAfter: nil, random: least) == 0, "full jitter")
    }

    @Test func durationsAsTheCommandLineWritesThem() {
        #expect(FetchDuration(parsing: "90s")?.milliseconds == 90_000)
        #expect(FetchDuration(parsing: "5m")?.milliseconds == 300_000)
        #expect(FetchDuration(parsing: "1h")?.milliseconds == 3_600_000)
        #expect(FetchDuration(parsing: "1500ms")?.milliseconds == 1500)
        #expect(FetchDuration(parsing: "2.5")?.milliseconds == 2500)
        #expect(FetchDuration(parsing: "0s") == nil && FetchDuration(parsing: "-3m") == nil && FetchDuration(parsing: "soon") == nil)
        #expect(FetchDuration(milliseconds: 300_000).description == "5m" && FetchDuration(milliseconds: 1500).description == "1500ms")
    }

    @Test func urlsAreRecordedWithoutCredentials() throws {
        let url = try #require(URL(string: "https://ann:hunter2@api.example.org/v1/events?date-min=2024-01-01&api_key=s3cr3t&Token=abc&page=2"))
        let shown = RedactedURL.text(url)
        #expect(shown == "https://api.example.org/v1/events?date-min=2024-01-01&api_key=REDACTED&Token=REDACTED&page=2")
        #expect(!shown.contains("hunter2") && !shown.contains("ann") && !shown.contains("s3cr3t"))
        let custom = try #require(URL(string: "https://example.org/feed?sessionKey=x1&q=1"))
        #expect(RedactedURL.text(custom, secretParameters: ["session-key"]) == "https://example.org/feed?sessionKey=REDACTED&q=1")
    }

    @Test func contentTypesThatContradictTheMapping() {
        #expect(ContentTypeCheck.contradicts("text/html; charset=utf-8", format: .json))
        #expect(ContentTypeCheck.contradicts("application/xhtml+xml", format: .xml))
        #expect(ContentTypeCheck.contradicts("application/atom+xml", format: .ndjson))
        #expect(ContentTypeCheck.contradicts("application/json", format: .xml))
        #expect(!ContentTypeCheck.contradicts("application/json; charset=utf-8", format: .nasaColumnar))
        #expect(!ContentTypeCheck.contradicts("application/geo+json", format: .json))
        #expect(!ContentTypeCheck.contradicts("application/rss+xml", format: .xml))
        #expect(!ContentTypeCheck.contradicts("text/plain", format: .csv))
        #expect(!ContentTypeCheck.contradicts(nil, format: .json))
    }

    @Test func proxiesAsCurlChoosesThem() throws {
        let environment = ["https_proxy": "proxy.internal:3128", "HTTP_PROXY": "http://plain.internal:8080", "no_proxy": "localhost,.corp.example,127.0.0.1"]
        let settings = ProxySettings(environment: environment)
        #expect(settings.proxy(for: try #require(URL(string: "https://api.example.org/x"))) != nil)
        #expect(settings.proxy(for: try #require(URL(string: "http://api.example.org/x"))) != nil)
        #expect(settings.proxy(for: try #require(URL(string: "https://db.corp.example/x"))) == nil)
        #expect(settings.proxy(for: try #require(URL(string: "http://127.0.0.1:8080/x"))) == nil)
        #expect(ProxySettings(environment: [:]).proxy(for: try #require(URL(string: "https://api.example.org/x"))) == nil)
    }
}
