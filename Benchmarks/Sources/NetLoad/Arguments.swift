/// What follows a command's URL: counts (whole numbers above 0, in their order), flags (words the
/// command names) and valued options (`name=value`, for names it names), options in any order
/// and each at most once. `nil` when an argument is none of these or an option comes twice, so
/// that a misspelt option is refused rather than read as a count or left out.
struct TrailingArguments {
    var counts: [Int] = []
    var flags: Set<String> = []
    var values: [String: String] = [:]

    init?(_ arguments: ArraySlice<String>, flags knownFlags: Set<String>, valued knownNames: Set<String> = []) {
        for argument in arguments {
            if let count = Int(argument) {
                guard count > 0 else { return nil }
                counts.append(count)
            } else if knownFlags.contains(argument) {
                guard flags.insert(argument).inserted else { return nil }
            } else if let equals = argument.firstIndex(of: "="), knownNames.contains(String(argument[..<equals])) {
                let name = String(argument[..<equals])
                guard values[name] == nil else { return nil }
                values[name] = String(argument[argument.index(after: equals)...])
            } else {
                return nil
            }
        }
    }

    /// The counts given, followed by `defaults` for those left out; `nil` when more counts are
    /// given than `defaults` has places for.
    func counts(defaults: [Int]) -> [Int]? {
        counts.count <= defaults.count ? counts + defaults.dropFirst(counts.count) : nil
    }
}
