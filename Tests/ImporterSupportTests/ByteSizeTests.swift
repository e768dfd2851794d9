import ImporterTestSupport
import ImporterSupport
import Testing

/// Sizes as `--sort-memory` takes them: binary multiples, case and a trailing B or iB ignored,
/// anything else (zero, negative, fractions, unknown units, overflow) refused.
@Suite struct ByteSizeTests {
    @Test func sizesParseAsBinaryMultiples() {
        #expect(ByteSize(parsing: "4096")?.bytes == 4096)
        #expect(ByteSize(parsing: "512K")?.bytes == 512 << 10)
        #expect(ByteSize(parsing: "16M")?.bytes == 16 << 20)
        #expect(ByteSize(parsing: "16m")?.bytes == 16 << 20)
        #expect(ByteSize(parsing: "1GiB")?.bytes == 1 << 30)
        #expect(ByteSize(parsing: "64MB")?.bytes == 64 << 20)
        #expect(ByteSize(bytes: 16 << 20).description == "16M" && ByteSize(bytes: 1000).description == "1000")
    }

    @Test(arguments: ["", "0", "-1M", "1.5M", "12T", "M", "9999999999999G", "16 M"])
    func anythingElseIsRefused(_ text: String) {
        #expect(ByteSize(parsing: text) == nil)
    }
}
