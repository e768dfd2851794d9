/// Why a benchmark step failed.
enum BenchError: Error, CustomStringConvertible {
    case io(String)
    case failed(String)
    case usage(String)

    var description: String {
        switch self { case .io(let m), .failed(let m), .usage(let m): m }
    }
}
