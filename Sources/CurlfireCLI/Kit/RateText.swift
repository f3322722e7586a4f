/// curl's `--limit-rate` values: bytes per second, with an optional `k`, `m` or `g` suffix
/// (1024-based, either case), as curl reads them.
public enum RateText {
    /// The bytes per second `text` stands for (`"400K"` → 409600), or `nil` when it is not a
    /// positive rate (empty, negative, zero, an unknown suffix, or too large).
    public static func bytesPerSecond(_ text: String) -> Int? {
        guard let last = text.last else { return nil }
        let multiplier: Int
        var digits = Substring(text)
        switch last {
        case "k", "K": multiplier = 1 << 10
        case "m", "M": multiplier = 1 << 20
        case "g", "G": multiplier = 1 << 30
        default: multiplier = 1
        }
        if multiplier != 1 { digits = digits.dropLast() }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(digits), value > 0 else {
            return nil
        }
        let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
        return overflow ? nil : product
    }
}
