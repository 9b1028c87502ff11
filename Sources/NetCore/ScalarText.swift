extension String {
    /// Replaces every occurrence of `target`, compared scalar by scalar.
    ///
    /// `String.replacing` and `contains` compare Characters, and a quote followed by a combining
    /// mark is one Character that is not a quote: shell and curl quoting built on them could be
    /// broken out of (found by the curl fuzzer). Shells and parsers read bytes, so escaping must
    /// too.
    package func replacingScalars(_ target: String, with replacement: String) -> String {
        let pattern = Array(target.unicodeScalars)
        guard !pattern.isEmpty else { return self }
        let scalars = Array(unicodeScalars)
        var result = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            if index + pattern.count <= scalars.count, scalars[index..<(index + pattern.count)].elementsEqual(pattern) {
                result.append(contentsOf: replacement.unicodeScalars)
                index += pattern.count
            } else {
                result.append(scalars[index])
                index += 1
            }
        }
        return String(result)
    }

    /// Whether the text holds `scalar` anywhere, combining marks or not.
    package func containsScalar(_ scalar: Unicode.Scalar) -> Bool {
        unicodeScalars.contains(scalar)
    }
}
