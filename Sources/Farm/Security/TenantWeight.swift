/// A tenant's weight in the share of the workers (docs/operations.md, "Tenants"), written
/// `weight=N` after a token's or a client key's role in its file: a tenant of weight 4
/// gets four times the running shards of a tenant of weight 1 while both have work.
public enum TenantWeight {
    public static let range: ClosedRange<Double> = 0.01...1000

    /// The weight named by the fields after the role, if any; `at` names the line.
    public static func parse(_ fields: some Sequence<String>, at line: String) throws(TenantWeightError) -> Double? {
        var weight: Double?
        for field in fields where field.hasPrefix("weight=") {
            let text = field.dropFirst("weight=".count)
            guard let value = Double(text), range.contains(value) else {
                throw TenantWeightError("\(line): weight '\(text)' is not a number from 0.01 to 1000")
            }
            guard weight == nil else { throw TenantWeightError("\(line): weight given twice") }
            weight = value
        }
        return weight
    }
}

public struct TenantWeightError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
